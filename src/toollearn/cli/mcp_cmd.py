"""`toollearn mcp serve`: toollearn tools as an MCP server (see `toollearn.serve.mcp_server`).

toollearn mcp serve --module my_tools            # its @tool functions, over stdio
toollearn mcp serve --tools tools.json --transport http --port 8001   # simulated, at /mcp
"""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    m = subparsers.add_parser("mcp", help="serve toollearn tools to MCP clients")
    sub = m.add_subparsers(dest="mcp_command", metavar="SUBCOMMAND")
    m.set_defaults(func=lambda _a: m.print_help() or 2)
    s = sub.add_parser("serve", help="an MCP server of @tool functions or a tool file",
                       description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    src = s.add_mutually_exclusive_group()
    src.add_argument("--tools", default=None, help="a tool file (simulated execution)")
    src.add_argument("--module", default=None, help="import MODULE and serve its @tool functions")
    s.add_argument("--tools-format", default="auto", help="format of --tools (default auto)")
    s.add_argument("--timeout", type=float, default=5.0, help="seconds per tool call")
    s.add_argument("--transport", choices=("stdio", "http"), default="stdio")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8001)
    s.set_defaults(func=run_mcp_serve)


def run_mcp_serve(args: argparse.Namespace) -> int:
    from toollearn.cli.run import build_env
    from toollearn.serve.mcp_server import serve_mcp

    serve_mcp(build_env(args), args.transport, args.host, args.port)
    return 0
