"""The messages and service of Triton's ``inference`` protobuf package, built without protoc.

The lock has no grpcio-tools/protoc, so instead of generated ``*_pb2.py`` modules this
module holds the protocol as a compact schema table (field numbers and names as in
Triton's ``grpc_service.proto`` and ``model_config.proto``, the KServe v2 / Open
Inference Protocol), turns it into a ``descriptor_pb2.FileDescriptorProto`` and asks
protobuf for the message classes. The wire format is what matters: tritonclient (with its
own generated classes) talks to these classes unchanged, which the tests check.

Schema syntax (indentation nests): ``enum Name A=0 B=1 ...``, ``message Name``, and fields
``<number> <name> <type> [rep] [oneof=<group>]`` where ``<type>`` is a scalar
(``string bool int32 ...``), a message/enum path inside the package (``ModelInput.Format``)
or ``map<K,V>`` (a map field; its entry type is generated). The shared-memory, trace and
log-settings RPCs are not served (a client calling them gets UNIMPLEMENTED), so their
messages are left out.
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["PACKAGE", "SERVICE", "METHODS", "messages", "message_class"]

PACKAGE = "inference"
SERVICE = "inference.GRPCInferenceService"

_SCHEMA = """
enum DataType TYPE_INVALID=0 TYPE_BOOL=1 TYPE_UINT8=2 TYPE_UINT16=3 TYPE_UINT32=4 TYPE_UINT64=5 TYPE_INT8=6 TYPE_INT16=7 TYPE_INT32=8 TYPE_INT64=9 TYPE_FP16=10 TYPE_FP32=11 TYPE_FP64=12 TYPE_STRING=13 TYPE_BF16=14
message ModelRateLimiter
  message Resource
    1 name string
    2 global bool
    3 count uint32
  1 resources ModelRateLimiter.Resource rep
  2 priority uint32
message ModelInstanceGroup
  enum Kind KIND_AUTO=0 KIND_GPU=1 KIND_CPU=2 KIND_MODEL=3
  message SecondaryDevice
    enum SecondaryDeviceKind KIND_NVDLA=0
    1 kind ModelInstanceGroup.SecondaryDevice.SecondaryDeviceKind
    2 device_id int64
  1 name string
  4 kind ModelInstanceGroup.Kind
  2 count int32
  6 rate_limiter ModelRateLimiter
  3 gpus int32 rep
  8 secondary_devices ModelInstanceGroup.SecondaryDevice rep
  5 profile string rep
  7 passive bool
  9 host_policy string
message ModelTensorReshape
  1 shape int64 rep
message ModelInput
  enum Format FORMAT_NONE=0 FORMAT_NHWC=1 FORMAT_NCHW=2
  1 name string
  2 data_type DataType
  3 format ModelInput.Format
  4 dims int64 rep
  5 reshape ModelTensorReshape
  6 is_shape_tensor bool
  7 allow_ragged_batch bool
  8 optional bool
message ModelOutput
  1 name string
  2 data_type DataType
  3 dims int64 rep
  5 reshape ModelTensorReshape
  4 label_filename string
  6 is_shape_tensor bool
message BatchInput
  enum Kind BATCH_ELEMENT_COUNT=0 BATCH_ACCUMULATED_ELEMENT_COUNT=1 BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO=2 BATCH_MAX_ELEMENT_COUNT_AS_SHAPE=3 BATCH_ITEM_SHAPE=4 BATCH_ITEM_SHAPE_FLATTEN=5
  1 kind BatchInput.Kind
  2 target_name string rep
  3 data_type DataType
  4 source_input string rep
message BatchOutput
  enum Kind BATCH_SCATTER_WITH_INPUT_SHAPE=0
  1 target_name string rep
  2 kind BatchOutput.Kind
  3 source_input string rep
message ModelVersionPolicy
  message Latest
    1 num_versions uint32
  message All
  message Specific
    1 versions int64 rep
  1 latest ModelVersionPolicy.Latest oneof=policy_choice
  2 all ModelVersionPolicy.All oneof=policy_choice
  3 specific ModelVersionPolicy.Specific oneof=policy_choice
message ModelOptimizationPolicy
  enum ModelPriority PRIORITY_DEFAULT=0 PRIORITY_MAX=1 PRIORITY_MIN=2
  message Graph
    1 level int32
  message Cuda
    message GraphSpec
      message Shape
        1 dim int64 rep
      message LowerBound
        1 batch_size int32
        2 input map<string,ModelOptimizationPolicy.Cuda.GraphSpec.Shape>
      1 batch_size int32
      2 input map<string,ModelOptimizationPolicy.Cuda.GraphSpec.Shape>
      3 graph_lower_bound ModelOptimizationPolicy.Cuda.GraphSpec.LowerBound
    1 graphs bool
    2 busy_wait_events bool
    3 graph_spec ModelOptimizationPolicy.Cuda.GraphSpec rep
    4 output_copy_stream bool
  message ExecutionAccelerators
    message Accelerator
      1 name string
      2 parameters map<string,string>
    1 gpu_execution_accelerator ModelOptimizationPolicy.ExecutionAccelerators.Accelerator rep
    2 cpu_execution_accelerator ModelOptimizationPolicy.ExecutionAccelerators.Accelerator rep
  message PinnedMemoryBuffer
    1 enable bool
  1 graph ModelOptimizationPolicy.Graph
  2 priority ModelOptimizationPolicy.ModelPriority
  3 cuda ModelOptimizationPolicy.Cuda
  4 execution_accelerators ModelOptimizationPolicy.ExecutionAccelerators
  5 input_pinned_memory ModelOptimizationPolicy.PinnedMemoryBuffer
  6 output_pinned_memory ModelOptimizationPolicy.PinnedMemoryBuffer
  7 gather_kernel_buffer_threshold uint32
  8 eager_batching bool
message ModelQueuePolicy
  enum TimeoutAction REJECT=0 DELAY=1
  1 timeout_action ModelQueuePolicy.TimeoutAction
  2 default_timeout_microseconds uint64
  3 allow_timeout_override bool
  4 max_queue_size uint32
message ModelDynamicBatching
  1 preferred_batch_size int32 rep
  2 max_queue_delay_microseconds uint64
  3 preserve_ordering bool
  4 priority_levels uint64
  5 default_priority_level uint64
  6 default_queue_policy ModelQueuePolicy
  7 priority_queue_policy map<uint64,ModelQueuePolicy>
message ModelSequenceBatching
  message Control
    enum Kind CONTROL_SEQUENCE_START=0 CONTROL_SEQUENCE_READY=1 CONTROL_SEQUENCE_END=2 CONTROL_SEQUENCE_CORRID=3
    1 kind ModelSequenceBatching.Control.Kind
    2 int32_false_true int32 rep
    3 fp32_false_true float rep
    5 bool_false_true bool rep
    4 data_type DataType
  message ControlInput
    1 name string
    2 control ModelSequenceBatching.Control rep
  message InitialState
    1 data_type DataType
    2 dims int64 rep
    3 zero_data bool oneof=state_data
    4 data_file string oneof=state_data
    5 name string
  message State
    1 input_name string
    2 output_name string
    3 data_type DataType
    4 dims int64 rep
    5 initial_state ModelSequenceBatching.InitialState rep
    6 use_same_buffer_for_input_output bool
    7 use_growable_memory bool
  message StrategyDirect
    1 max_queue_delay_microseconds uint64
    2 minimum_slot_utilization float
  message StrategyOldest
    1 max_candidate_sequences int32
    2 preferred_batch_size int32 rep
    3 max_queue_delay_microseconds uint64
    4 preserve_ordering bool
  3 direct ModelSequenceBatching.StrategyDirect oneof=strategy_choice
  4 oldest ModelSequenceBatching.StrategyOldest oneof=strategy_choice
  1 max_sequence_idle_microseconds uint64
  2 control_input ModelSequenceBatching.ControlInput rep
  5 state ModelSequenceBatching.State rep
  6 iterative_sequence bool
message ModelEnsembling
  message Step
    1 model_name string
    2 model_version int64
    3 input_map map<string,string>
    4 output_map map<string,string>
    5 model_namespace string
  1 step ModelEnsembling.Step rep
message ModelParameter
  1 string_value string
message ModelWarmup
  message Input
    1 data_type DataType
    2 dims int64 rep
    3 zero_data bool oneof=input_data_type
    4 random_data bool oneof=input_data_type
    5 input_data_file string oneof=input_data_type
  1 name string
  2 batch_size uint32
  3 inputs map<string,ModelWarmup.Input>
  4 count uint32
message ModelOperations
  1 op_library_filename string rep
message ModelTransactionPolicy
  1 decoupled bool
message ModelRepositoryAgents
  message Agent
    1 name string
    2 parameters map<string,string>
  1 agents ModelRepositoryAgents.Agent rep
message ModelResponseCache
  1 enable bool
message ModelConfig
  1 name string
  2 platform string
  17 backend string
  3 version_policy ModelVersionPolicy
  4 max_batch_size int32
  5 input ModelInput rep
  6 output ModelOutput rep
  20 batch_input BatchInput rep
  21 batch_output BatchOutput rep
  12 optimization ModelOptimizationPolicy
  11 dynamic_batching ModelDynamicBatching oneof=scheduling_choice
  13 sequence_batching ModelSequenceBatching oneof=scheduling_choice
  15 ensemble_scheduling ModelEnsembling oneof=scheduling_choice
  7 instance_group ModelInstanceGroup rep
  8 default_model_filename string
  9 cc_model_filenames map<string,string>
  10 metric_tags map<string,string>
  14 parameters map<string,ModelParameter>
  16 model_warmup ModelWarmup rep
  18 model_operations ModelOperations
  19 model_transaction_policy ModelTransactionPolicy
  23 model_repository_agents ModelRepositoryAgents
  24 response_cache ModelResponseCache
message ServerLiveRequest
message ServerLiveResponse
  1 live bool
message ServerReadyRequest
message ServerReadyResponse
  1 ready bool
message ModelReadyRequest
  1 name string
  2 version string
message ModelReadyResponse
  1 ready bool
message ServerMetadataRequest
message ServerMetadataResponse
  1 name string
  2 version string
  3 extensions string rep
message ModelMetadataRequest
  1 name string
  2 version string
message ModelMetadataResponse
  message TensorMetadata
    1 name string
    2 datatype string
    3 shape int64 rep
  1 name string
  2 versions string rep
  3 platform string
  4 inputs ModelMetadataResponse.TensorMetadata rep
  5 outputs ModelMetadataResponse.TensorMetadata rep
message InferParameter
  1 bool_param bool oneof=parameter_choice
  2 int64_param int64 oneof=parameter_choice
  3 string_param string oneof=parameter_choice
  4 double_param double oneof=parameter_choice
  5 uint64_param uint64 oneof=parameter_choice
message InferTensorContents
  1 bool_contents bool rep
  2 int_contents int32 rep
  3 int64_contents int64 rep
  4 uint_contents uint32 rep
  5 uint64_contents uint64 rep
  6 fp32_contents float rep
  7 fp64_contents double rep
  8 bytes_contents bytes rep
message ModelInferRequest
  message InferInputTensor
    1 name string
    2 datatype string
    3 shape int64 rep
    4 parameters map<string,InferParameter>
    5 contents InferTensorContents
  message InferRequestedOutputTensor
    1 name string
    2 parameters map<string,InferParameter>
  1 model_name string
  2 model_version string
  3 id string
  4 parameters map<string,InferParameter>
  5 inputs ModelInferRequest.InferInputTensor rep
  6 outputs ModelInferRequest.InferRequestedOutputTensor rep
  7 raw_input_contents bytes rep
message ModelInferResponse
  message InferOutputTensor
    1 name string
    2 datatype string
    3 shape int64 rep
    4 parameters map<string,InferParameter>
    5 contents InferTensorContents
  1 model_name string
  2 model_version string
  3 id string
  4 parameters map<string,InferParameter>
  5 outputs ModelInferResponse.InferOutputTensor rep
  6 raw_output_contents bytes rep
message ModelStreamInferResponse
  1 error_message string
  2 infer_response ModelInferResponse
message ModelConfigRequest
  1 name string
  2 version string
message ModelConfigResponse
  1 config ModelConfig
message ModelStatisticsRequest
  1 name string
  2 version string
message StatisticDuration
  1 count uint64
  2 ns uint64
message InferStatistics
  1 success StatisticDuration
  2 fail StatisticDuration
  3 queue StatisticDuration
  4 compute_input StatisticDuration
  5 compute_infer StatisticDuration
  6 compute_output StatisticDuration
  7 cache_hit StatisticDuration
  8 cache_miss StatisticDuration
message InferBatchStatistics
  1 batch_size uint64
  2 compute_input StatisticDuration
  3 compute_infer StatisticDuration
  4 compute_output StatisticDuration
message MemoryUsage
  1 type string
  2 id int64
  3 byte_size uint64
message ModelStatistics
  1 name string
  2 version string
  3 last_inference uint64
  4 inference_count uint64
  5 execution_count uint64
  6 inference_stats InferStatistics
  7 batch_stats InferBatchStatistics rep
  8 memory_usage MemoryUsage rep
message ModelStatisticsResponse
  1 model_stats ModelStatistics rep
message ModelRepositoryParameter
  1 bool_param bool oneof=parameter_choice
  2 int64_param int64 oneof=parameter_choice
  3 string_param string oneof=parameter_choice
  4 bytes_param bytes oneof=parameter_choice
message RepositoryIndexRequest
  1 repository_name string
  2 ready bool
message RepositoryIndexResponse
  message ModelIndex
    1 name string
    2 version string
    3 state string
    4 reason string
  1 models RepositoryIndexResponse.ModelIndex rep
message RepositoryModelLoadRequest
  1 repository_name string
  2 model_name string
  3 parameters map<string,ModelRepositoryParameter>
message RepositoryModelLoadResponse
message RepositoryModelUnloadRequest
  1 repository_name string
  2 model_name string
  3 parameters map<string,ModelRepositoryParameter>
message RepositoryModelUnloadResponse
"""

# rpc name -> (request message, response message, client streaming, server streaming)
METHODS = {
    "ServerLive": ("ServerLiveRequest", "ServerLiveResponse", False, False),
    "ServerReady": ("ServerReadyRequest", "ServerReadyResponse", False, False),
    "ModelReady": ("ModelReadyRequest", "ModelReadyResponse", False, False),
    "ServerMetadata": ("ServerMetadataRequest", "ServerMetadataResponse", False, False),
    "ModelMetadata": ("ModelMetadataRequest", "ModelMetadataResponse", False, False),
    "ModelInfer": ("ModelInferRequest", "ModelInferResponse", False, False),
    "ModelStreamInfer": ("ModelInferRequest", "ModelStreamInferResponse", True, True),
    "ModelConfig": ("ModelConfigRequest", "ModelConfigResponse", False, False),
    "ModelStatistics": ("ModelStatisticsRequest", "ModelStatisticsResponse", False, False),
    "RepositoryIndex": ("RepositoryIndexRequest", "RepositoryIndexResponse", False, False),
    "RepositoryModelLoad": ("RepositoryModelLoadRequest", "RepositoryModelLoadResponse", False, False),
    "RepositoryModelUnload": ("RepositoryModelUnloadRequest", "RepositoryModelUnloadResponse", False, False),
}

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "double": _F.TYPE_DOUBLE, "float": _F.TYPE_FLOAT, "int64": _F.TYPE_INT64, "uint64": _F.TYPE_UINT64,
    "int32": _F.TYPE_INT32, "uint32": _F.TYPE_UINT32, "bool": _F.TYPE_BOOL, "string": _F.TYPE_STRING,
    "bytes": _F.TYPE_BYTES,
}


def _camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


def _parse(schema):
    """Schema text -> a FileDescriptorProto of package ``inference`` (proto3)."""
    fd = descriptor_pb2.FileDescriptorProto(name="pyasc_inference.proto", package=PACKAGE, syntax="proto3")
    enums = set()
    lines = [ln for ln in schema.splitlines() if ln.strip()]
    # first pass: every enum's path, so a field's type resolves to enum or message
    stack = []
    for ln in lines:
        depth = (len(ln) - len(ln.lstrip())) // 2
        words = ln.split()
        del stack[depth:]
        if words[0] == "message":
            stack.append(words[1])
        elif words[0] == "enum":
            enums.add(".".join(stack + [words[1]]))
    containers = []  # (depth, DescriptorProto or FileDescriptorProto, path)
    for ln in lines:
        depth = (len(ln) - len(ln.lstrip())) // 2
        words = ln.split()
        while containers and containers[-1][0] >= depth:
            containers.pop()
        parent = containers[-1][1] if containers else fd
        path = containers[-1][2] if containers else []
        if words[0] == "enum":
            e = parent.enum_type.add(name=words[1])
            for item in words[2:]:
                k, v = item.split("=")
                e.value.add(name=k, number=int(v))
        elif words[0] == "message":
            m = parent.message_type.add(name=words[1]) if parent is fd else parent.nested_type.add(name=words[1])
            containers.append((depth, m, path + [words[1]]))
        else:
            number, name, typ = int(words[0]), words[1], words[2]
            flags = words[3:]
            f = parent.field.add(name=name, number=number, json_name=_camel(name)[:1].lower() + _camel(name)[1:])
            f.label = _F.LABEL_REPEATED if "rep" in flags else _F.LABEL_OPTIONAL
            if typ.startswith("map<"):
                key, value = typ[4:-1].split(",")
                entry = parent.nested_type.add(name=_camel(name) + "Entry")
                entry.options.map_entry = True
                for num, fname, ftype in ((1, "key", key), (2, "value", value)):
                    ef = entry.field.add(name=fname, number=num, label=_F.LABEL_OPTIONAL, json_name=fname)
                    _set_type(ef, ftype, enums)
                f.label = _F.LABEL_REPEATED
                f.type = _F.TYPE_MESSAGE
                f.type_name = "." + ".".join([PACKAGE] + path + [entry.name])
            else:
                _set_type(f, typ, enums)
            for fl in flags:
                if fl.startswith("oneof="):
                    group = fl[6:]
                    names = [o.name for o in parent.oneof_decl]
                    if group not in names:
                        parent.oneof_decl.add(name=group)
                        names.append(group)
                    f.oneof_index = names.index(group)
    svc = fd.service.add(name=SERVICE.split(".")[1])
    for rpc, (req, resp, cs, ss) in METHODS.items():
        svc.method.add(name=rpc, input_type=f".{PACKAGE}.{req}", output_type=f".{PACKAGE}.{resp}",
                       client_streaming=cs, server_streaming=ss)
    return fd


def _set_type(f, typ, enums):
    if typ in _SCALARS:
        f.type = _SCALARS[typ]
    else:
        f.type = _F.TYPE_ENUM if typ in enums else _F.TYPE_MESSAGE
        f.type_name = f".{PACKAGE}.{typ}"


def _build():
    # A private pool: another library in the process (tritonclient's generated modules, in
    # the tests) registers the same ``inference.*`` names in the default pool.
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(_parse(_SCHEMA).SerializeToString())
    fdesc = pool.FindFileByName("pyasc_inference.proto")
    classes = {}

    def walk(desc, prefix):
        for nested in desc.nested_types:
            walk(nested, prefix + desc.name + ".")
        classes[prefix + desc.name] = message_factory.GetMessageClass(desc)

    for desc in fdesc.message_types_by_name.values():
        walk(desc, "")
    return pool, fdesc, classes


_POOL, FILE, _CLASSES = _build()


def messages():
    """All message classes by name (nested ones as ``Outer.Inner``)."""
    return dict(_CLASSES)


def message_class(name):
    """The message class ``inference.<name>`` (e.g. ``ModelInferRequest``)."""
    return _CLASSES[name]


def data_type_enum():
    """The ``inference.DataType`` enum descriptor."""
    return FILE.enum_types_by_name["DataType"]
