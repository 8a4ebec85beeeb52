#include "sim/scenario/scenario.h"

#include "sim/scenario/enum_names.h"

namespace ddpsim {

const char* precision_name(Precision p) { return enum_name(p); }
const char* optimizer_name(Optimizer o) { return enum_name(o); }
const char* strategy_name(SyncStrategy s) { return enum_name(s); }
const char* algorithm_name(AllReduceAlgorithm a) { return enum_name(a); }
const char* intra_node_name(IntraNodeKind k) { return enum_name(k); }

}  // namespace ddpsim
