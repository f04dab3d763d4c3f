// The device worker's context: the GPU's device, context and stream, the modules it loaded, the
// buffers of the current argument list (inputs and inouts kept pristine, outputs poisoned, guards
// around every buffer) and the launches; a sticky error throws CudaError, a refused launch
// LaunchRefused.
#include "worker.hpp"

#include <cstring>

#include "kernel_launch.hpp"

namespace cutune::cuda::worker {

Worker::Worker(int ordinal) {
  check(cuInit(0), "cuInit");
  check(cuDeviceGet(&device_, ordinal), "cuDeviceGet");
  check(cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context_), "cuCtxSetCurrent");
  check(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
  report_ = describe();
  clock_ = std::make_unique<SmClock>(report_.pci_bus_id);
  timer_.emplace(stream_);  // its flush: twice this device's L2
}

CUmodule Worker::module(const std::string& cubin) {
  auto found = modules_.find(cubin);
  if (found == modules_.end()) {
    if (modules_.size() >= 512) {  // bound the context's memory over a long tune
      for (auto& [path, loaded] : modules_) cuModuleUnload(loaded);
      modules_.clear();
    }
    CUmodule loaded = nullptr;
    refuse_unless_sticky(cuModuleLoad(&loaded, cubin.c_str()), "loading " + cubin);
    found = modules_.emplace(cubin, loaded).first;
  }
  return found->second;
}

proto::DeviceReport Worker::describe() {
  proto::DeviceReport report;
  char name[256] = {};
  check(cuDeviceGetName(name, sizeof name, device_), "cuDeviceGetName");
  report.name = name;
  auto attribute = [&](CUdevice_attribute which) {
    int value = 0;
    check(cuDeviceGetAttribute(&value, which, device_), "cuDeviceGetAttribute");
    return value;
  };
  report.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  report.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  report.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  report.regs_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  report.l2_bytes = attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
  report.smem_optin_bytes = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  check(cuDriverGetVersion(&report.driver_version), "cuDriverGetVersion");
  char bus[64] = {};
  check(cuDeviceGetPCIBusId(bus, sizeof bus, device_), "cuDeviceGetPCIBusId");
  report.pci_bus_id = bus;
  return report;
}

void Worker::refuse_unless_sticky(CUresult code, const std::string& what) {
  if (code == CUDA_SUCCESS) return;
  if (is_sticky(code) || cuCtxSynchronize() != CUDA_SUCCESS) {
    throw CudaError(code, what + ": " + error_name(code));
  }
  throw LaunchRefused(what + ": " + error_name(code));
}

CUfunction Worker::function(const proto::Launch& launch, const proto::MeasureRequest& request) {
  for (const proto::Constant& constant : request.constants) {
    write_constant(module(launch.cubin), constant);
  }
  CUfunction entry = nullptr;
  refuse_unless_sticky(cuModuleGetFunction(&entry, module(launch.cubin), launch.kernel.c_str()),
                       "finding " + launch.kernel);
  if (launch.dynamic_smem > 48 * 1024) {
    refuse_unless_sticky(
        cuFuncSetAttribute(entry, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(launch.dynamic_smem)),
        "dynamic shared memory of " + std::to_string(launch.dynamic_smem) + " bytes");
  }
  return entry;
}

void Worker::write_constant(CUmodule loaded, const proto::Constant& constant) {
  CUdeviceptr symbol = 0;
  std::size_t symbol_bytes = 0;
  refuse_unless_sticky(cuModuleGetGlobal(&symbol, &symbol_bytes, loaded, constant.symbol.c_str()),
                       "finding __constant__ " + constant.symbol);
  std::vector<std::byte> values;
  if (constant.arg < 0) values = converted(constant.dtype, constant.values);
  const std::size_t bytes =
      constant.arg < 0 ? values.size()
                       : workspace_.pristine.at(static_cast<std::size_t>(constant.arg)).bytes;
  if (bytes > symbol_bytes) {
    throw LaunchRefused("__constant__ " + constant.symbol + " holds " +
                        std::to_string(symbol_bytes) + " bytes, its fill " + std::to_string(bytes));
  }
  if (constant.arg < 0) {
    check(cuMemcpyHtoD(symbol, values.data(), bytes), "cuMemcpyHtoD");
  } else {
    const DeviceBuffer& from = workspace_.pristine.at(static_cast<std::size_t>(constant.arg));
    check(cuMemcpyDtoD(symbol, from.pointer, bytes), "cuMemcpyDtoD");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
  }
}

void Worker::launch(CUfunction entry, const proto::Launch& shape, std::vector<void*> params) {
  const cutune::cuda::KernelGeometry geometry{shape.grid, shape.block, shape.cluster,
                                              shape.dynamic_smem};
  refuse_unless_sticky(cutune::cuda::launch_kernel(entry, geometry, stream_, params.data()),
                       "launching " + shape.kernel);
}

void Worker::sync(const std::string& what) {
  CUresult code = cuStreamSynchronize(stream_);
  if (code != CUDA_SUCCESS) throw CudaError(code, what + ": " + error_name(code));
}

void Worker::prepare(const proto::MeasureRequest& request) {
  nlohmann::json identity = {{"args", request.args}, {"seed", request.seed}};
  if (request.reference) identity["reference"] = *request.reference;
  std::string key = identity.dump();
  if (key == workspace_.key) return;
  workspace_ = Workspace{};
  Random rng(request.seed);
  for (const auto& arg : request.args) {
    std::size_t bytes = arg.is_buffer ? arg.count * proto::dtype_size(arg.dtype) : 0;
    workspace_.working.emplace_back(arg.is_buffer ? GuardedBuffer(bytes) : GuardedBuffer());
    workspace_.pristine.emplace_back();
    workspace_.expected.emplace_back();
    if (arg.is_buffer && proto::is_filled(arg.role)) {
      workspace_.pristine.back() = DeviceBuffer(bytes);
      if (arg.fill == proto::Fill::zero) {
        check(cuMemsetD8(workspace_.pristine.back().pointer, 0, bytes), "cuMemsetD8");
      } else {
        auto values = random_values(arg.dtype, arg.count, rng, arg.fill == proto::Fill::positive);
        check(cuMemcpyHtoD(workspace_.pristine.back().pointer, values.data(), bytes),
              "cuMemcpyHtoD");
      }
    }
  }
  // The uploads above ran on the legacy stream and may still be in flight.
  check(cuCtxSynchronize(), "cuCtxSynchronize");
  if (request.reference) {
    CUfunction reference = function(*request.reference, request);
    restore_inputs();
    reset_outputs(request.args);
    launch(reference, *request.reference, params(request.args));
    sync("reference");
    for (std::size_t i = 0; i < request.args.size(); ++i) {
      const auto& arg = request.args[i];
      if (!arg.is_buffer || !proto::is_compared(arg.role)) continue;
      workspace_.expected[i].resize(workspace_.working[i].bytes);
      check(cuMemcpyDtoH(workspace_.expected[i].data(), workspace_.working[i].pointer,
                         workspace_.expected[i].size()),
            "cuMemcpyDtoH");
    }
  }
  workspace_.key = std::move(key);
}

void Worker::restore_inputs() {
  for (std::size_t i = 0; i < workspace_.pristine.size(); ++i) {
    if (workspace_.pristine[i].pointer == 0) continue;
    check(cuMemcpyDtoDAsync(workspace_.working[i].pointer, workspace_.pristine[i].pointer,
                            workspace_.pristine[i].bytes, stream_),
          "cuMemcpyDtoDAsync");
  }
}

void Worker::reset_outputs(const std::vector<proto::Arg>& args) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_buffer || proto::is_filled(args[i].role)) continue;
    bool integer = args[i].dtype == proto::Dtype::i32 || args[i].dtype == proto::Dtype::i64 ||
                   args[i].dtype == proto::Dtype::u32 || args[i].dtype == proto::Dtype::u64 ||
                   args[i].dtype == proto::Dtype::u8;
    const bool zeroed =
        args[i].role == proto::Role::scratch || args[i].role == proto::Role::partial_sums;
    unsigned char fill = zeroed ? 0x00 : integer ? 0x7f : 0xff;
    check(
        cuMemsetD8Async(workspace_.working[i].pointer, fill, workspace_.working[i].bytes, stream_),
        "cuMemsetD8Async");
  }
}

std::vector<void*> Worker::params(const std::vector<proto::Arg>& args) {
  scalars_.assign(args.size(), {});
  std::vector<void*> pointers;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const auto& arg = args[i];
    std::byte* slot = scalars_[i].data();
    if (arg.hidden) continue;
    if (arg.is_buffer) {
      std::memcpy(slot, &workspace_.working[i].pointer, sizeof(CUdeviceptr));
    } else {
      put_value(arg.dtype, slot, arg.value);
    }
    pointers.push_back(slot);
  }
  return pointers;
}

}  // namespace cutune::cuda::worker
