#include "sim/results/band.h"

namespace ddpsim {

ResultBands bands_from_json(const nlohmann::json& u) {
  auto band = [&](const char* name) {
    const nlohmann::json& b = u.at(name);
    return Band{b.at("p10").get<double>(), b.at("p50").get<double>(), b.at("p90").get<double>()};
  };
  ResultBands r;
  r.samples = u.at("samples").get<int>();
  r.samples_per_second = band("samples_per_second");
  r.iteration_time = band("iteration_time");
  r.exposed_comm_share = band("exposed_comm_share");
  return r;
}

}  // namespace ddpsim
