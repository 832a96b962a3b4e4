// The run-time half of generated_operator_kernel.hpp: NVRTC compiles a generated kernel's source
// for the current device, the driver loads it, and the process keeps it for the next kernel of
// the same source. NVRTC and the driver API stay in this file, so that the header needs neither.

#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>

#include <chrono>
#include <compound_sparse/operators/generated_operator_kernel.hpp>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace compound_sparse {
namespace impl {

struct GeneratedModule {
  CUmodule module = nullptr;
  CUfunction function = nullptr;
};

namespace {

void require_nvrtc(nvrtcResult result, const char* call, const std::string& name, const std::string& log = "") {
  COMPOUND_SPARSE_REQUIRE_KIND(
      DeviceError, result == NVRTC_SUCCESS,
      call << " failed for kernel " << name << ": " << nvrtcGetErrorString(result) << (log.empty() ? "" : "\n") << log);
}

void require_driver(CUresult result, const char* call, const std::string& name) {
  const char* text = nullptr;
  if (cuGetErrorString(result, &text) != CUDA_SUCCESS) text = nullptr;
  COMPOUND_SPARSE_REQUIRE_KIND(DeviceError, result == CUDA_SUCCESS,
                               call << " failed for kernel " << name << ": " << (text ? text : "unknown error"));
}

/// "sm_XY" of the device the calling thread's runtime uses.
std::string current_architecture() {
  int device = 0, major = 0, minor = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  COMPOUND_SPARSE_REQUIRE_KIND(DeviceError, status == cudaSuccess,
                               "generated kernels: no CUDA device to compile for: " << cudaGetErrorString(status));
  return "sm_" + std::to_string(10 * major + minor);
}

/// The device code of `source` for `architecture`, by NVRTC.
std::vector<char> compile(const GeneratedKernelSource& source, const std::string& architecture) {
  nvrtcProgram program = nullptr;
  require_nvrtc(nvrtcCreateProgram(&program, source.source.c_str(), (source.name + ".cu").c_str(), 0, nullptr, nullptr),
                "nvrtcCreateProgram", source.name);
  const std::string arch_option = "--gpu-architecture=" + architecture;
  const char* options[] = {arch_option.c_str()};
  const nvrtcResult compiled = nvrtcCompileProgram(program, 1, options);
  std::string log;
  std::size_t log_size = 0;
  if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
    log.resize(log_size);
    if (nvrtcGetProgramLog(program, &log[0]) != NVRTC_SUCCESS) log.clear();
    while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  }
  std::vector<char> cubin;
  std::size_t size = 0;
  nvrtcResult status = compiled;
  if (status == NVRTC_SUCCESS) status = nvrtcGetCUBINSize(program, &size);
  if (status == NVRTC_SUCCESS) {
    cubin.resize(size);
    status = nvrtcGetCUBIN(program, cubin.data());
  }
  nvrtcDestroyProgram(&program);
  require_nvrtc(status, compiled == NVRTC_SUCCESS ? "nvrtcGetCUBIN" : "nvrtcCompileProgram", source.name, log);
  return cubin;
}

/// Every kernel the process compiled, by architecture and source. The modules are never
/// unloaded: they live as long as the device's context, and unloading them from a static
/// destructor would race the driver's own teardown at exit.
struct ModuleCache {
  std::mutex mutex;
  std::map<std::string, std::shared_ptr<const GeneratedModule>> modules;
};

ModuleCache& module_cache() {
  static ModuleCache cache;
  return cache;
}

}  // namespace

std::shared_ptr<const GeneratedModule> load_generated_kernel(const GeneratedKernelSource& source,
                                                             double& compile_seconds) {
  const std::string architecture = current_architecture();
  const std::string key = architecture + '\n' + source.source;
  auto& cache = module_cache();
  const std::lock_guard<std::mutex> lock(cache.mutex);
  compile_seconds = 0;
  if (const auto found = cache.modules.find(key); found != cache.modules.end()) return found->second;
  const auto start = std::chrono::steady_clock::now();
  const std::vector<char> cubin = compile(source, architecture);
  // The driver loads into the calling thread's current context; a thread that has not used the
  // runtime yet has none, and cudaFree(nullptr) makes the device's primary context current.
  CUcontext context = nullptr;
  if (cuCtxGetCurrent(&context) != CUDA_SUCCESS || context == nullptr) cudaFree(nullptr);
  auto module = std::make_shared<GeneratedModule>();
  require_driver(cuModuleLoadData(&module->module, cubin.data()), "cuModuleLoadData", source.name);
  require_driver(cuModuleGetFunction(&module->function, module->module, source.name.c_str()), "cuModuleGetFunction",
                 source.name);
  compile_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  cache.modules.emplace(key, module);
  return module;
}

void launch_generated_kernel(const GeneratedModule& module, const GeneratedKernelSource& source, std::int64_t n,
                             const void* b, std::int64_t ldb, void* c, std::int64_t ldc, void* stream) {
  const std::int64_t blocks = (n + source.block_size - 1) / source.block_size;
  COMPOUND_SPARSE_REQUIRE(
      blocks <= 2147483647LL,
      "generated operator kernel: " << n << " vectors need " << blocks << " blocks, more than one launch holds");
  long long count = n, b_stride = ldb, c_stride = ldc;
  void* arguments[] = {&count, const_cast<void**>(&b), &b_stride, &c, &c_stride};
  require_driver(cuLaunchKernel(module.function, static_cast<unsigned>(blocks),
                                static_cast<unsigned>(source.row_splits), 1, static_cast<unsigned>(source.block_size),
                                1, 1, 0, static_cast<CUstream>(stream), arguments, nullptr),
                 "cuLaunchKernel", source.name);
}

std::size_t generated_kernels_compiled() {
  auto& cache = module_cache();
  const std::lock_guard<std::mutex> lock(cache.mutex);
  return cache.modules.size();
}

}  // namespace impl
}  // namespace compound_sparse
