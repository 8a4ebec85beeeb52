#include "sim/sweep/sweep_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "sim/output/atomic_file.h"
#include "sim/output/output_folder.h"
#include "sim/results/result_json.h"
#include "sim/scenario/enum_names.h"
#include "sim/scenario/scenario_json.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

}  // namespace

SweepStore::SweepStore(std::string out_dir) : dir_(std::move(out_dir)) {
  check_output_folder(dir_, "-o");
  std::error_code ec;
  fs::create_directories(dir_ + "/points", ec);
  if (ec) {
    throw InputError(SourceLocation{dir_ + "/points", 0, 0},
                     "cannot create the points folder: " + ec.message());
  }
  const std::string lock = dir_ + "/.lock";
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT, 0644);
  if (lock_fd_ < 0) {
    throw InputError(SourceLocation{lock, 0, 0},
                     std::string("cannot open the lock file: ") + std::strerror(errno));
  }
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {};
    ssize_t n = ::pread(lock_fd_, holder, sizeof holder - 1, 0);
    ::close(lock_fd_);
    lock_fd_ = -1;
    std::string pid = n > 0 ? std::string(holder, static_cast<size_t>(n)) : "?";
    while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
    throw InputError(SourceLocation{dir_, 0, 0},
                     "another ddpsim sweep (pid " + pid +
                         ") is writing to this folder; wait for it or choose another -o");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(lock_fd_, 0) == 0) {
    [[maybe_unused]] ssize_t n = ::pwrite(lock_fd_, pid.data(), pid.size(), 0);
  }
}

SweepStore::~SweepStore() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

std::string SweepStore::point_path(const std::string& id) const {
  return dir_ + "/points/" + id + ".json";
}

std::string SweepStore::trace_path(const std::string& id) const {
  return dir_ + "/points/" + id + ".trace.json";
}

std::optional<RecordedPoint> SweepStore::recorded_point(const std::string& id) const {
  std::error_code ec;
  if (!fs::is_regular_file(point_path(id), ec)) return std::nullopt;
  try {
    const nlohmann::json doc = nlohmann::json::parse(read_file(point_path(id)));
    if (doc.at("id").get<std::string>() != id) return std::nullopt;
    RecordedPoint point{result_from_json(doc.at("result")), {}, std::nullopt};
    if (doc.contains("provenance")) point.provenance = provenance_from_json(doc["provenance"]);
    if (doc["result"].contains("uncertainty"))
      point.bands = bands_from_json(doc["result"]["uncertainty"]);
    return point;
  } catch (const std::exception&) {
    return std::nullopt;  // not a complete point file: the point runs again
  }
}

void SweepStore::remove_stale_temporaries() const {
  std::error_code ec;
  for (const fs::path& folder : {fs::path(dir_), fs::path(dir_) / "points"}) {
    for (const auto& entry : fs::directory_iterator(folder, ec)) {
      if (entry.path().filename().string().find(".tmp.") != std::string::npos) {
        fs::remove(entry.path(), ec);
      }
    }
  }
}

std::string point_document(const PlannedPoint& point, const SweepSpec& spec,
                           const SimulationResult& result, const Provenance& provenance,
                           const nlohmann::json& uncertainty) {
  nlohmann::json overrides = nlohmann::json::object();
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    overrides[spec.axes[a].key] = spec.axes[a].values[point.point.value_index[a]].text;
  }
  nlohmann::json doc;
  doc["id"] = point.id;
  doc["overrides"] = overrides;
  doc["scenario"] = scenario_to_json(point.scenario);
  doc["result"] = result_to_json(result);
  if (!uncertainty.is_null()) doc["result"]["uncertainty"] = uncertainty;
  doc["provenance"] = provenance_to_json(provenance);
  return doc.dump(1) + "\n";
}

nlohmann::json sweep_manifest(const SweepPlan& plan, const std::string& shard) {
  nlohmann::json axes = nlohmann::json::array();
  for (const SweepAxis& axis : plan.spec.axes) {
    nlohmann::json values = nlohmann::json::array();
    for (const SweepValue& v : axis.values) values.push_back(v.text);
    axes.push_back({{"key", axis.key}, {"values", values}});
  }
  nlohmann::json ids = nlohmann::json::array();
  for (const PlannedPoint& p : plan.points) ids.push_back(p.id);
  const Scenario& base = plan.points.front().scenario;
  return {{"format", "ddpsim-sweep-1"},
          {"scenario_file", plan.scenario_file},
          {"scenario_name", base.name},
          {"model", base.model.name},
          {"set", plan.set_overrides},
          {"axes", axes},
          {"points", plan.points.size()},
          {"point_ids", ids},
          {"shard", shard},
          {"compute",
           {{"mode", enum_name(base.compute.mode)},
            {"efficiency", base.compute.efficiency},
            {"step_time_s", base.compute.step_time},
            {"profile", base.compute.profile}}}};
}

}  // namespace ddpsim
