#include "kernels/check.h"

#include <utility>

namespace ddpsim::kernels {

namespace {
thread_local std::string g_layer;
}

const std::string& current_layer() { return g_layer; }

ScopedLayer::ScopedLayer(std::string name) : previous_(std::exchange(g_layer, std::move(name))) {}

ScopedLayer::~ScopedLayer() { g_layer = std::move(previous_); }

void raise_gpu_error(const char* library, const char* call, const char* file, int line,
                     long long code, const char* text, bool out_of_memory) {
  std::string message = std::string(library) + " error " + std::to_string(code) + " (" +
                        (text ? text : "?") + ") in " + call + " at " + file + ":" +
                        std::to_string(line);
  if (!g_layer.empty()) message += ", layer " + g_layer;
  throw GpuError(message, out_of_memory);
}

}  // namespace ddpsim::kernels
