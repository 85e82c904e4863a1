"""What a LlamaIndex tool returned, as the Reader handed it over."""

from __future__ import annotations

from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    PydanticResponse,
    Response,
    StreamingResponse,
)
from llama_index.core.tools import ToolOutput

__all__ = ["reader_result"]

_RESPONSES = (Response, StreamingResponse, AsyncStreamingResponse, PydanticResponse)


def reader_result(output: ToolOutput) -> object:
    """What a LlamaIndex tool returned, as the Reader handed it over.

    A function tool's return value as is; a query engine's response as its source nodes
    and a retriever's as its nodes, whose `metadata["moca_citation"]` holds the record.
    """
    raw = output.raw_output
    if isinstance(raw, _RESPONSES):
        return raw.source_nodes
    return raw
