// Chooses the input pipeline model from the scenario's data section: no loading for synthetic
// data (benchmark scripts' on-device tensors), else the loader actors of data_loader.h.
#pragma once

#include <memory>

#include "sim/engine/run_context.h"

namespace ddpsim {

std::unique_ptr<DataFeed> make_data_feed(RunContext* ctx);

}  // namespace ddpsim
