// The cluster's link parameters a platform calibration may set, by their scenario key. This is
// the one mapping between a fitted parameter's name and the ClusterSpec field it overrides: a
// new transport knob (an efficiency, a per-message cost) is one more entry in
// link_parameters.cpp, and the platform file, the scenario loader and the fitter take it.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

enum class LinkParameterKind { kBandwidth, kLatency };

struct LinkParameter {
  const char* name;  // scenario key: "cluster.nic.bandwidth"
  LinkParameterKind kind;
  const char* meaning;
  double& (*field)(ClusterSpec&);  // where it lives
};

// Every parameter a platform file may hold.
const std::vector<LinkParameter>& link_parameters();
std::string link_parameter_names();  // "cluster.intra_node.bandwidth, ..." for messages

// The field of `cluster` a parameter names; nullptr for an unknown name.
double* link_parameter(ClusterSpec* cluster, const std::string& name);
const LinkParameter* find_link_parameter(const std::string& name);

}  // namespace ddpsim
