// The server side of the parameter servers (ps_engine.h): landed pushes summed on the key's engine
// thread at the server's memory bandwidth, the sum stored (and updated, with update: server), then
// the partition's pulls due (sync: every worker's push in; async: within the staleness bound).
#include "sim/engine/ps_engine.h"

namespace ddpsim {
namespace ps_detail {

void PsSync::push_landed(const Message& m) {
  RankState& rs = ranks_[m.rank];
  rs.in_flight -= slice(m.part);
  if (!rs.queued.empty()) release_pushes(m.rank);
  const Part& part = parts_[m.part];
  Thread& thread = state_[part.server].threads[part.thread];
  for (int l = 0; l < lane_gpus(); ++l) {  // a node lane's push is each of its GPUs'
    ++server_steps_[m.step].arrived[m.part];
    thread.queue.push_back({m.part, m.step, m.rank + l});
    thread.jobs->release();
  }
  if (staleness_bound_ > 0) {  // async: this GPU's own pull may be due already
    ServerState& st = state_[part.server];
    if (st.waiting.empty()) st.waiting.resize(parts_.size());
    st.waiting[m.part].push_back(m);
    release_waiting(m.part);
  }
}

void PsSync::serve(int k, int th, long expected) {
  Thread& thread = state_[k].threads[th];
  for (long done = 0; done < expected; ++done) {
    thread.jobs->acquire();
    const Message m = thread.queue.front();
    thread.queue.pop_front();
    const Part& part = parts_[m.part];
    ServerStep& ss = server_steps_[m.step];
    if (m.rank >= 0) {
      // The first g pushes of a partition are taken as they are (BytePS's zero-copy first
      // push, one per slice); every later one is added: two reads and a write per byte.
      if (ss.summed[m.part] >= g_) busy_for(3 * slice(m.part) * sum_seconds_per_byte_ * sum_fold_);
      if (++ss.summed[m.part] == p_) {
        thread.queue.push_back({m.part, m.step, -1});
        thread.jobs->release();
      }
      continue;
    }
    busy_for(2 * part.bytes * sum_seconds_per_byte_ + part.bytes * update_seconds_per_byte_);
    version_[m.part] = m.step;
    if (staleness_bound_ > 0) {
      release_waiting(m.part);
    } else {
      for (int r = 0; r < p_; r += lane_gpus()) pull_due(m.part, m.step, r);
    }
  }
}

void PsSync::busy_for(double seconds) {
  if (seconds > 0) sg4::this_actor::sleep_for(seconds);
}

void PsSync::release_waiting(int part) {
  std::deque<Message>& waiting = state_[parts_[part].server].waiting[part];
  std::vector<Message> due;
  for (auto it = waiting.begin(); it != waiting.end();) {
    if (version_[part] < it->step - staleness_bound_) {
      ++it;
      continue;
    }
    due.push_back(*it);
    it = waiting.erase(it);
  }
  for (const Message& m : due) pull_due(m.part, m.step, m.rank);
}

void PsSync::pull_due(int part, int step, int rank) {
  RankState& rs = ranks_[rank];
  if (forward_pulls_ && !rs.requested[step]) {
    rs.blocked[step].push_back(part);
    return;
  }
  send_pull(part, step, rank);
}

void PsSync::send_pull(int part, int step, int rank) {
  int& stale = ranks_[rank].staleness[step];
  stale = std::max(stale, step - version_[part]);
  send(&state_[parts_[part].server].pulls[rank], {part, step, rank}, priority_ || forward_pulls_,
       false);
}

}  // namespace ps_detail
}  // namespace ddpsim
