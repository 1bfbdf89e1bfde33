"""toollearn: turn small open LLMs into reliable tool users.

Importing the package is cheap: heavy dependencies load inside the functions that need them.
"""

from toollearn.core.errors import (
    DataError,
    EngineError,
    FormatError,
    RetrievalError,
    SchemaError,
    ToollearnError,
)
from toollearn.core.types import (
    ErrorKind,
    Example,
    Message,
    Ref,
    Step,
    Tool,
    ToolCall,
    Trace,
)

__version__ = "0.1.0"

__all__ = [
    "DataError",
    "EngineError",
    "ErrorKind",
    "Example",
    "FormatError",
    "Message",
    "Ref",
    "RetrievalError",
    "SchemaError",
    "Step",
    "Tool",
    "ToolCall",
    "ToollearnError",
    "Trace",
]
