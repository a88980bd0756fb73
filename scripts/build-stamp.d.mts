/** dist/build-stamp.json: where the build's last step writes the hash of its inputs. */
export declare const stampFile: string
/** The hex SHA-256 of the build's inputs (src/, bin/, data/, scripts/, package.json, the lock file, tsconfig.json) and of Node's version and platform. */
export declare const buildInputsHash: () => string
/** Whether dist/ holds a build of the current inputs (its stamp matches {@link buildInputsHash}). */
export declare const buildIsCurrent: () => boolean
