"""msgpack responses: the request's map, `{name: {"shape", "dtype", "data"}}`, for the outputs.

`response-packb-buffer` is the server handing msgpack a memoryview of each output array (one copy,
msgpack's own); `decode-response-unpackb` is the client, `msgpack.unpackb` then `np.frombuffer`.
No serving library speaks msgpack: both are the project's own, as for requests.
"""

from __future__ import annotations

from serialbench.case import Case
from serialbench.inputs import ALL_INPUTS

from . import _responses
from .msgpack import REFUSES, _buffer_for, _entry_builder, _headers, decode_fallback, decode_unpackb


def packb_buffer(payload):
    import msgpack

    body, pack = _entry_builder(_responses.as_outputs(payload), _buffer_for), msgpack.packb
    return lambda: pack(body())


MSGPACK = ("msgpack",)
CASES = [
    Case("msgpack", "response-packb-buffer", ALL_INPUTS, packb_buffer, reference_decoder=decode_fallback,
         requires=MSGPACK, libraries=MSGPACK, headers=_headers, response=True, refuses=REFUSES),
    Case("msgpack", "decode-response-unpackb", ALL_INPUTS, decode_unpackb, source="response-packb-buffer",
         requires=MSGPACK, libraries=MSGPACK, response=True, refuses=REFUSES),
]
