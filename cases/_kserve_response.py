"""KServe v2 responses: what KServe's model server builds from a model's output arrays, and the
response header the project's own encoders write byte for byte as KServe does.

KServe's path (kserve 0.21, no server started): a v2 model's `predict` returns an `InferResponse`
whose `InferOutput`s hold the arrays (`InferOutput(name, shape, datatype, data=array)`, as
KServe's custom-model example does); the REST endpoint calls `InferResponse.to_rest()`, with
binary outputs when the request asked for them (tritonclient asks: `binary_data_output`), and the
gRPC servicer `to_grpc()`. Both call `InferOutput.set_data_from_numpy` on each array.

Only the standard library and numpy at import; KServe itself is imported by `kserve_response()`,
inside a case's setup, so only a worker of a `response-kserve` case pays for it.
"""

from __future__ import annotations

from . import _kserve, _kserve_server, _responses

# The response's `id`: KServe echoes the request's or makes a uuid4 string. A fixed one of the same
# length keeps the bodies the same on every run.
RESPONSE_ID = "00000000-0000-4000-8000-000000000000"

# set_data_from_numpy(binary_data=False) decodes each BYTES element as UTF-8 for JSON.
REFUSES_JSON_BYTES = ("KServe's JSON response decodes every BYTES element as UTF-8: it refuses one that is not; "
                      "a PNG goes back in a binary (triton-binary) or gRPC response")


def outputs(payload) -> list[tuple[str, list[int], str, object]]:
    """(name, shape, datatype, value) of each output, named as outputs."""
    return [(name, _kserve.shape(t.value), _kserve.datatype(t.value), t.value)
            for name, t in zip(_responses.output_names(payload), payload.tensors, strict=True)]


def kserve_response(payload, binary: bool):
    """build() -> the InferResponse a KServe v2 model returns for these output arrays (BYTES as the
    object array KServe's `set_data_from_numpy` takes); `binary`: the request asked for binary outputs."""
    infer_type = _kserve_server.infer_type()  # imports KServe, its gRPC messages in their own pool
    InferOutput, InferResponse = infer_type.InferOutput, infer_type.InferResponse
    specs = [(name, shape, datatype, _kserve.object_array(value) if datatype == "BYTES" else value)
             for name, shape, datatype, value in outputs(payload)]
    model_name = _kserve.MODEL_NAME

    def build():
        infer_outputs = [InferOutput(name, shape, datatype, data=array) for name, shape, datatype, array in specs]
        return InferResponse(RESPONSE_ID, model_name, infer_outputs, use_binary_outputs=binary)

    return build


def header(output_entries: list) -> dict:
    """The v2 response object in the key order KServe's `to_rest()` writes it."""
    return {"id": RESPONSE_ID, "model_name": _kserve.MODEL_NAME, "model_version": None, "outputs": output_entries}
