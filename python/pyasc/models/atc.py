"""``pyasc-atc``: CANN's ``atc`` model converter, spelled the same, writing pyasc ``.om`` files.

Usage (as ``atc``)::

    pyasc-atc --model=resnet50.onnx --framework=5 --output=resnet50 \\
              --input_shape="actual_input_1:1,3,224,224" --soc_version=Ascend910B \\
              [--input_format=NCHW] [--precision_mode=allow_mix_precision] [--insert_op_conf=aipp.cfg] \\
              [--dynamic_batch_size=1,2,4,8 | --dynamic_image_size="224,224;448,448" | --dynamic_dims="1,224;2,448"] \\
              [--out_nodes="node:0;node2:1"] [--log=info]
    pyasc-atc --mode=1 --om=resnet50.om --json=resnet50.json      # a model as JSON
    pyasc-atc --mode=3 --model=m.onnx --framework=5 --soc_version=Ascend910B   # check only

On success it prints ATC's ``ATC run success, welcome to the next use.`` and exits 0; on failure
``ATC run failed, Please check the detail log, Try 'pyasc-atc --help' for more information`` and
the reason, exit 1. Flags CANN's ATC has that mean nothing on this device are accepted, recorded in
the .om's metadata and reported at ``--log=info`` (docs/models.md lists which).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

__all__ = ["main"]

SUCCESS = "ATC run success, welcome to the next use."
FAILURE = "ATC run failed, Please check the detail log, Try 'pyasc-atc --help' for more information"
START = "ATC start working now, please wait for a moment."
FRAMEWORKS = {"0": "Caffe", "1": "MindSpore", "3": "TensorFlow", "5": "ONNX"}
LOG_LEVELS = ("debug", "info", "warning", "error", "null")

# ATC flags with no effect here: accepted (a script written for atc runs unchanged) and recorded
IGNORED = ("op_select_implmode", "optypelist_for_implmode", "fusion_switch_file", "enable_small_channel",
           "buffer_optimize", "compression_optimize_conf", "keep_dtype", "modify_mixlist", "output_type",
           "input_fp16_nodes", "is_input_adjust_hw_layout", "is_output_adjust_hw_layout", "host_env_os",
           "host_env_cpu", "core_type", "aicore_num", "virtual_type", "op_debug_level", "dump_mode",
           "status_check", "disable_reuse_memory", "enable_single_stream", "customize_dtypes",
           "input_shape_range", "op_precision_mode", "precision_mode_v2", "allow_hf32", "sparsity",
           "external_weight", "auto_tune_mode", "op_compiler_cache_mode", "op_compiler_cache_dir",
           "display_model_info", "save_original_model", "shape_generalized_build_mode", "oo_level",
           "deterministic", "atomic_clean_policy", "input_hint_shape", "exclude_engines", "dump_path")


class _Failure(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # argparse would exit(2) with its own wording: ATC's failure line instead
        raise _Failure(message)


def _parser():
    p = _Parser(prog="pyasc-atc", allow_abbrev=False, description="Converts an ONNX model into a pyasc .om "
                "file with CANN atc's options (docs/models.md).")
    a = p.add_argument
    a("--mode", default="0", help="0: model -> .om (default); 1: .om or ONNX model -> JSON; 3: check only")
    a("--model", help="the source model (.onnx)")
    a("--weight", help="Caffe weights (not supported: Caffe models are not)")
    a("--framework", help="5 = ONNX (0 Caffe, 1 MindSpore, 3 TensorFlow are not supported)")
    a("--output", help="output path; '.om' is appended unless it ends so")
    a("--om", help="--mode=1: the .om (or ONNX model with --framework=5) to dump")
    a("--json", help="--mode=1: the JSON file to write")
    a("--soc_version", help="target SoC, e.g. Ascend910B (recorded)")
    a("--input_shape", help='"name:n,c,h,w;name2:..." (-1: dynamic, with a --dynamic_* option)')
    a("--input_format", help="NCHW | NHWC | ND | NCDHW | NDHWC (recorded in the model's input descriptions)")
    a("--precision_mode", help="force_fp16 | force_fp32 | allow_mix_precision | allow_fp32_to_fp16 | "
      "must_keep_origin_dtype")
    a("--insert_op_conf", help="an AIPP configuration file (aipp_mode static or dynamic)")
    a("--dynamic_batch_size", help="batch gears, e.g. 1,2,4,8")
    a("--dynamic_image_size", help='image size gears, e.g. "224,224;448,448"')
    a("--dynamic_dims", help='ND gears, e.g. "1,224;2,448" (one value per -1 of --input_shape)')
    a("--out_nodes", help='"node:index;..." or output tensor names')
    a("--log", default="null", help="debug | info | warning | error | null")
    for k in IGNORED:
        a(f"--{k}", help=argparse.SUPPRESS)
    return p


def _log(level, args, msg):
    order = {k: i for i, k in enumerate(LOG_LEVELS)}
    if order.get(level, 4) >= order.get(args.log, 4) and args.log != "null":
        print(f"[{level.upper()}] ATC: {msg}", file=sys.stderr)


def _output_path(out):
    return out if out.endswith(".om") else out + ".om"


def _to_json(path, framework):
    """The JSON dump of --mode=1 (header, metadata, graph: inputs, outputs, nodes, initializers)."""
    import onnx
    from onnx import numpy_helper

    from . import om

    if not os.path.isfile(path):
        raise _Failure(f"--om: file '{path}' does not exist")
    with open(path, "rb") as f:
        head = f.read(8)
    if om.is_om(head):
        packed = om.read(path)
        doc = {"header": packed.header, "meta": packed.meta}
        proto = onnx.ModelProto()
        proto.ParseFromString(packed.onnx)
    else:
        if framework != "5":
            raise _Failure(f"--om: '{path}' is not a pyasc .om file; an ONNX model needs --framework=5")
        from ._convert import load_proto

        proto = load_proto(path)
        doc = {}

    def vi(v):
        tt = v.type.tensor_type
        dims = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in tt.shape.dim]
        return {"name": v.name, "dtype": onnx.TensorProto.DataType.Name(tt.elem_type), "shape": dims}

    def attr(a):
        v = onnx.helper.get_attribute_value(a)
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
        if isinstance(v, list):
            return [x.decode("utf-8", "replace") if isinstance(x, bytes) else x for x in v
                    if isinstance(x, (int, float, str, bytes))]
        if isinstance(v, onnx.TensorProto):
            return {"tensor": list(v.dims), "dtype": onnx.TensorProto.DataType.Name(v.data_type)}
        return v if isinstance(v, (int, float, str)) else str(type(v).__name__)

    g = proto.graph
    doc["graph"] = {
        "name": g.name, "ir_version": int(proto.ir_version),
        "opsets": {o.domain or "ai.onnx": int(o.version) for o in proto.opset_import},
        "inputs": [vi(v) for v in g.input], "outputs": [vi(v) for v in g.output],
        "nodes": [{"name": n.name, "type": n.op_type, "domain": n.domain or "ai.onnx", "inputs": list(n.input),
                   "outputs": list(n.output), "attrs": {a.name: attr(a) for a in n.attribute}} for n in g.node],
        "initializers": [{"name": t.name, "dtype": onnx.TensorProto.DataType.Name(t.data_type),
                          "shape": list(t.dims), "bytes": int(numpy_helper.to_array(t).nbytes)}
                         for t in g.initializer],
    }
    return doc


def _run(argv):
    args, unknown = _parser().parse_known_args(argv)
    if unknown:
        raise _Failure(f"unknown command line flag(s) {' '.join(unknown)}")
    if args.log not in LOG_LEVELS:
        raise _Failure(f"--log: '{args.log}' is not one of {', '.join(LOG_LEVELS)}")
    if args.mode == "1":
        if not args.om or not args.json:
            raise _Failure("--mode=1 needs --om (the model) and --json (the output file)")
        doc = _to_json(args.om, args.framework)
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=2, default=str)
        _log("info", args, f"wrote {args.json}")
        return
    if args.mode not in ("0", "3"):
        raise _Failure(f"--mode: '{args.mode}' is not supported (0: convert, 1: to JSON, 3: check)")
    for flag in ("model", "framework", "soc_version") + (("output",) if args.mode == "0" else ()):
        if not getattr(args, flag):
            raise _Failure(f"--{flag} is required")
    if args.framework != "5":
        name = FRAMEWORKS.get(args.framework)
        raise _Failure(f"--framework={args.framework}" + (f" ({name})" if name else "") +
                       " is not supported: pyasc-atc converts ONNX models (--framework=5)")
    if args.weight:
        raise _Failure("--weight is for Caffe models, which pyasc-atc does not convert")
    dyn = [(k, getattr(args, f"dynamic_{f}")) for k, f in (("batch", "batch_size"), ("image", "image_size"),
                                                          ("dims", "dims")) if getattr(args, f"dynamic_{f}")]
    if len(dyn) > 1:
        raise _Failure("--dynamic_batch_size, --dynamic_image_size and --dynamic_dims exclude each other")
    ignored = {k: getattr(args, k) for k in IGNORED if getattr(args, k) is not None}
    for k, v in ignored.items():
        _log("warning", args, f"--{k}={v} has no effect on pyasc's CPU device (recorded)")
    aipp_text = None
    if args.insert_op_conf:
        if not os.path.isfile(args.insert_op_conf):
            raise _Failure(f"--insert_op_conf: file '{args.insert_op_conf}' does not exist")
        with open(args.insert_op_conf, encoding="utf-8", errors="replace") as f:
            aipp_text = f.read()
    from . import _convert, om

    options = {k: v for k, v in vars(args).items() if v is not None and k not in ("om", "json")}
    meta, data = _convert.convert(args.model, source_name=os.path.basename(args.model), producer="pyasc-atc",
                                  options=options, input_shape=args.input_shape, precision_mode=args.precision_mode,
                                  soc_version=args.soc_version, input_format=args.input_format,
                                  dynamic=dyn[0] if dyn else None, aipp_config=aipp_text, out_nodes=args.out_nodes)
    g = meta["graph"]
    _log("info", args, f"{args.model}: {g['nodes']} nodes after the passes (folded {g['folded']}, "
         f"rewrites {g['rewrites']}), precision_mode {meta['precision_mode']} (computes "
         f"{meta['compute_dtype']})")
    if args.mode == "3":
        return
    path = _output_path(args.output)
    om._write(path, om.pack(meta, data))
    _log("info", args, f"wrote {path} ({os.path.getsize(path)} bytes)")


def main(argv=None):
    """Entry point of ``pyasc-atc``; returns the exit status (0 success, 1 failure)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if any(a in ("-h", "--help") for a in argv):
        _parser().print_help()
        return 0
    print(START, flush=True)
    try:
        _run(argv)
    except _Failure as e:
        print(FAILURE, flush=True)
        print(f"E10001: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - every failure ends in ATC's failure line with its reason
        from ..errors import AscendError

        print(FAILURE, flush=True)
        if isinstance(e, AscendError):
            print(f"E10001: {e}", file=sys.stderr)
        else:
            print(f"E19999: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(SUCCESS, flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
