"""A small MCP server (official `mcp` SDK) for `toollearn run --mcp`: see the README."""

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("shop")


@server.tool()
def price_of(item: str, quantity: int = 1) -> dict:
    """Price of an item in the shop, for a quantity."""
    prices = {"apple": 0.5, "bread": 2.25}
    if item not in prices:
        raise ToolError(f"no such item: {item}")
    return {"item": item, "total": prices[item] * quantity}


@server.tool()
def opening_hours(day: str) -> str:
    """Opening hours of the shop on a day of the week."""
    return "closed" if day.lower() == "sunday" else "9:00-18:00"


if __name__ == "__main__":
    server.run()
