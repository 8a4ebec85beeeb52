#include "sim/engine/data_feed_factory.h"

#include "sim/engine/data_loader.h"

namespace ddpsim {

std::unique_ptr<DataFeed> make_data_feed(RunContext* ctx) {
  if (ctx->scenario->data.synthetic) return std::make_unique<SyntheticFeed>();
  return make_loader_feed(ctx);
}

}  // namespace ddpsim
