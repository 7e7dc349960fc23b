#!/usr/bin/env python3
"""What the `onnx` package (installed by scripts/setup into the venv this runs with) reads in an
ONNX model, for ModelMetadataTests to compare the SDK's own reader with; and a small model it
writes, so that the comparison also covers what the installed Piper voice lacks.

Usage:
  onnx_reference.py describe MODEL.onnx   prints one JSON object: ir_version, producer, opsets,
                                          metadata_props, inputs (weights left out), outputs,
                                          initializer count, parameters and parameters by type
  onnx_reference.py make OUT.onnx         writes a model of IR version 3 (weights listed among the
                                          inputs too), two operator sets, symbolic and open
                                          dimensions, a sequence output and a sparse initializer
"""

import json
import sys

import numpy
import onnx
from onnx import TensorProto, helper, numpy_helper


def dims(value_type):
    if not value_type.HasField("tensor_type"):
        return None
    tensor = value_type.tensor_type
    if not tensor.HasField("shape"):
        return None
    out = []
    for dim in tensor.shape.dim:
        if dim.HasField("dim_value"):
            out.append(dim.dim_value)
        elif dim.HasField("dim_param"):
            out.append(dim.dim_param)
        else:
            out.append(None)
    return out


def signature(value):
    kind = value.type.WhichOneof("value")
    element = TensorProto.DataType.Name(value.type.tensor_type.elem_type) if kind == "tensor_type" else {
        "sequence_type": "sequence", "map_type": "map", "optional_type": "optional"}.get(kind, "unknown")
    return {"name": value.name, "elementType": element, "shape": dims(value.type)}


def describe(path):
    model = onnx.load(path, load_external_data=False)
    graph = model.graph
    weights = list(graph.initializer) + [sparse.values for sparse in graph.sparse_initializer]
    names = {tensor.name for tensor in weights}
    by_type = {}
    for tensor in weights:
        name = TensorProto.DataType.Name(tensor.data_type)
        by_type[name] = by_type.get(name, 0) + int(numpy.prod(tensor.dims, dtype=numpy.int64))
    print(json.dumps({
        "irVersion": model.ir_version,
        "producer": " ".join(part for part in [model.producer_name, model.producer_version] if part) or None,
        "operatorSets": {(entry.domain or "ai.onnx"): entry.version for entry in model.opset_import},
        "values": {entry.key: entry.value for entry in model.metadata_props},
        "inputs": [signature(value) for value in graph.input if value.name not in names],
        "outputs": [signature(value) for value in graph.output],
        "tensorCount": len(weights),
        "parameterCount": sum(by_type.values()),
        "tensorTypes": by_type,
    }))


def make(path):
    weight = numpy_helper.from_array(numpy.arange(12, dtype=numpy.float32).reshape(4, 3), "weight")
    bias = numpy_helper.from_array(numpy.zeros(4, dtype=numpy.float16), "bias")
    shape = helper.make_tensor("shape", TensorProto.INT64, [2], [-1, 4])  # typed data, not raw bytes
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(numpy.ones(2, dtype=numpy.float32), "mask"),
        numpy_helper.from_array(numpy.array([1, 5], dtype=numpy.int64), "mask_indices"), [8])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", None])
    lengths = helper.make_tensor_sequence_value_info("pieces", TensorProto.FLOAT, None)
    nodes = [
        helper.make_node("MatMul", ["x", "weight_t"], ["h"]),
        helper.make_node("Transpose", ["weight"], ["weight_t"]),
        helper.make_node("Add", ["h", "bias32"], ["y"]),
        helper.make_node("Cast", ["bias"], ["bias32"], to=TensorProto.FLOAT),
        helper.make_node("SequenceConstruct", ["y"], ["pieces"]),
    ]
    # IR version 3 listed every weight among the graph's inputs as well.
    inputs = [x] + [helper.make_tensor_value_info(t.name, t.data_type, list(t.dims)) for t in [weight, bias, shape]]
    graph = helper.make_graph(nodes, "tiny", inputs, [y, lengths], initializer=[weight, bias, shape], sparse_initializer=[sparse])
    model = helper.make_model(graph, producer_name="onnx-reference", producer_version="1.0",
                              opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])
    model.ir_version = 3
    helper.set_model_props(model, {"model_type": "tiny-mlp", "name": "Tiny MLP", "license": "MIT"})
    onnx.save(model, path)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("describe", "make"):
        sys.exit(__doc__)
    (describe if sys.argv[1] == "describe" else make)(sys.argv[2])
