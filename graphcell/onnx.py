"""mindspore.onnx: `export` with torch.onnx.export's arguments (MindSpore 2.10's
`mindspore.onnx.export`), over graphcell's ONNX export.

As 2.10: the shapes are the example inputs' unless `dynamic_axes` names dynamic ones,
`export_params=False` makes the parameters graph inputs, `keep_initializers_as_inputs=True`
lists the initializers among the inputs too (their stored values are defaults a caller may
override), and the network is exported in inference mode. Unlike 2.10, `net` may be a
function or a vmapped ensemble, as for `graphcell.export`.
"""
from __future__ import annotations

import os

from onnx import helper

__all__ = ["export"]


def export(net, *inputs, file_name, input_names=None, output_names=None, export_params=True,
           keep_initializers_as_inputs=False, dynamic_axes=None) -> None:
    """Writes `net(*inputs)` to `file_name` (".onnx" appended when missing), atomically."""
    from .compiler.export import save_model, to_onnx
    from .train.atomic import check_folder
    for name, value, kind in (("input_names", input_names, list), ("output_names", output_names, list),
                              ("dynamic_axes", dynamic_axes, dict)):
        if value is not None and not isinstance(value, kind):   # 2.10's messages
            raise ValueError(f"The parameter '{name}' must be isinstance of {kind}, but got {value}.")
    path = os.fspath(file_name)
    path = path if path.endswith(".onnx") else path + ".onnx"
    check_folder(path, "export: ")
    model = to_onnx(net, *inputs, dynamic_axes=dynamic_axes or False, input_names=input_names or None,
                    output_names=output_names or None, params_as_inputs=not export_params).model
    if keep_initializers_as_inputs:
        graph = model.graph
        given = {value.name for value in graph.input}
        graph.input.extend(helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
                           for t in graph.initializer if t.name not in given)
    save_model(model, path)
