/** The CLI's version (`--version`, and the MCP server's `serverInfo.version`). */
export const VERSION = "0.1.0"
