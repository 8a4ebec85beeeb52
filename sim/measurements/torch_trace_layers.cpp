// Steps and per-layer times of a torch.profiler trace (torch_trace_layers.h).
#include "sim/measurements/torch_trace_layers.h"

#include <algorithm>
#include <set>

namespace ddpsim::torch_trace {

// ---------------------------------------------------------------- steps

std::vector<Step> find_steps(const Trace& t) {
  std::vector<Step> steps;
  for (const Event& e : t.events)
    if (e.name == kStepMark) steps.push_back({e.start, e.end});
  if (steps.empty())
    for (const Event& e : t.events)
      if (starts_with(e.name, "ProfilerStep#")) steps.push_back({e.start, e.end});
  if (steps.empty()) {
    Step all{t.events.front().start, t.events.front().end};
    for (const Event& e : t.events) all.end = std::max(all.end, e.end);
    steps.push_back(all);
  }
  return steps;
}

namespace {

bool inside(const Event& e, const Step& s) { return e.start >= s.start && e.start < s.end; }

// The events that start inside step `s` (the events are sorted by start): each step looks at its
// own events, so a trace of many steps is read in time linear in its size, not steps x events.
struct Span {
  std::vector<Event>::const_iterator first, last;
  auto begin() const { return first; }
  auto end() const { return last; }
};
Span events_of(const Trace& t, const Step& s) {
  auto by_start = [](const Event& e, double at) { return e.start < at; };
  const auto first = std::lower_bound(t.events.begin(), t.events.end(), s.start, by_start);
  return {first, std::lower_bound(first, t.events.end(), s.end, by_start)};
}

double optimizer_time(const Trace& t, const Step& s, const Clock& clock) {
  double sum = 0;
  for (const Event& e : events_of(t, s))
    if (inside(e, s) &&
        (starts_with(e.name, "Optimizer.step#") || starts_with(e.name, "Optimizer.zero_grad#")))
      sum += clock.span(e.start, e.end);
  return sum;
}

// One step's layer times and totals appended to `out`, with the step's duration and optimizer
// time: the tail both sources of layer times (marks, module events) share.
void add_step(StepTimes* out, std::map<std::string, std::pair<double, double>> times,
              double forward, double backward, const Trace& t, const Step& s, const Clock& clock) {
  out->steps.push_back(std::move(times));
  out->step_time.push_back(clock.span(s.start, s.end));
  out->optimizer.push_back(optimizer_time(t, s, clock));
  out->forward.push_back(forward);
  out->backward.push_back(backward);
}

// ---------------------------------------------------------------- layers from ddpsim's marks

void add_time(std::map<std::string, std::pair<double, double>>* m, std::vector<std::string>* order,
              const std::string& name, double fwd, double bwd) {
  auto [it, fresh] = m->emplace(name, std::make_pair(0.0, 0.0));
  if (fresh && std::find(order->begin(), order->end(), name) == order->end())
    order->push_back(name);
  it->second.first += fwd;
  it->second.second += bwd;
}

}  // namespace

StepTimes from_marks(const Trace& t, const std::vector<Step>& steps, const Clock& clock) {
  StepTimes out;
  for (const Step& s : steps) {
    std::vector<std::pair<double, std::string>> fwd, bwd;
    double backward_start = -1, backward_end = -1;
    for (const Event& e : events_of(t, s)) {
      if (!inside(e, s)) continue;
      if (starts_with(e.name, kForwardMark))
        fwd.emplace_back(e.start, e.name.substr(std::string(kForwardMark).size()));
      else if (starts_with(e.name, kBackwardMark))
        bwd.emplace_back(e.start, e.name.substr(std::string(kBackwardMark).size()));
    }
    if (fwd.empty()) continue;
    std::sort(bwd.begin(), bwd.end());
    const double last_forward = fwd.back().first;
    for (const Event& e : events_of(t, s)) {
      if (!inside(e, s) || !starts_with(e.name, kBackwardFunction) || e.start < last_forward)
        continue;
      if (backward_start < 0) backward_start = e.start;
      backward_end = std::max(backward_end, e.end);
    }
    if (backward_start < 0) backward_start = bwd.empty() ? last_forward : bwd.front().first;
    if (!bwd.empty()) backward_start = std::min(backward_start, bwd.front().first);
    backward_end = std::max({backward_end, backward_start, bwd.empty() ? 0 : bwd.back().first});

    // Boundaries on the host timeline, mapped to the clock once so the intervals tile it.
    std::vector<double> b = {s.start};
    for (const auto& f : fwd) b.push_back(f.first);
    b.push_back(backward_start);
    for (const auto& m : bwd) b.push_back(m.first);
    b.push_back(backward_end);
    for (size_t i = 1; i < b.size(); ++i) b[i] = std::max(b[i], b[i - 1]);
    const std::vector<double> v = clock.values(b);

    std::map<std::string, std::pair<double, double>> times;
    double forward = 0, backward = 0;
    for (size_t i = 0; i < fwd.size(); ++i) {
      add_time(&times, &out.order, fwd[i].second, v[i + 1] - v[i], 0);
      forward += v[i + 1] - v[i];
    }
    const size_t bs = fwd.size() + 1;  // index of backward_start
    // The loss: computed after the model's forward, its backward before the model's.
    const double loss_fwd = v[bs] - v[bs - 1];
    const double loss_bwd = v[bs + 1] - v[bs];
    add_time(&times, &out.order, "loss", loss_fwd, loss_bwd);
    forward += loss_fwd;
    backward += loss_bwd;
    for (size_t j = 0; j < bwd.size(); ++j) {
      const double d = v[bs + 2 + j] - v[bs + 1 + j];
      add_time(&times, &out.order, bwd[j].second, 0, d);
      backward += d;
    }
    add_step(&out, std::move(times), forward, backward, t, s, clock);
  }
  return out;
}

// ---------------------------------------------------------------- layers from module events

// Kineto's python tracer names a module call "nn.Module: <Class>_<k>". A leaf module (no module
// event nested in it) is a layer, named by the path of the modules around it.
StepTimes from_modules(const Trace& t, const std::vector<Step>& steps, const Clock& clock) {
  StepTimes out;
  std::vector<const Event*> modules;
  for (const Event& e : t.events)
    if (starts_with(e.name, kModulePrefix)) modules.push_back(&e);
  // Backward functions by sequence number.
  std::multimap<int64_t, const Event*> backward;
  for (const Event& e : t.events)
    if (starts_with(e.name, kBackwardFunction))
      if (auto seq = int_arg(e, "Sequence number")) backward.emplace(*seq, &e);
  for (const Step& s : steps) {
    std::map<std::string, std::pair<double, double>> times;
    double forward = 0, backward_total = 0;
    std::vector<const Event*> stack;
    std::vector<const Event*> in_step;
    {
      auto by_start = [](const Event* e, double at) { return e->start < at; };
      auto first = std::lower_bound(modules.begin(), modules.end(), s.start, by_start);
      for (auto m = first; m != modules.end() && (*m)->start < s.end; ++m)
        if (inside(**m, s)) in_step.push_back(*m);
    }
    for (size_t i = 0; i < in_step.size(); ++i) {
      const Event* m = in_step[i];
      while (!stack.empty() && !(m->start >= stack.back()->start && m->end <= stack.back()->end &&
                                 m->thread == stack.back()->thread))
        stack.pop_back();
      const bool leaf = i + 1 == in_step.size() ||
                        !(in_step[i + 1]->start >= m->start && in_step[i + 1]->end <= m->end &&
                          in_step[i + 1]->thread == m->thread);
      stack.push_back(m);
      if (!leaf) continue;
      std::string name;
      for (const Event* p : stack)
        name += (name.empty() ? "" : "/") + p->name.substr(std::string(kModulePrefix).size());
      const double fwd = clock.span(m->start, m->end);
      double bwd = 0;
      std::set<int64_t> seen;
      auto first = std::lower_bound(t.events.begin(), t.events.end(), m->start,
                                    [](const Event& e, double at) { return e.start < at; });
      for (auto op_it = first; op_it != t.events.end() && op_it->start < m->end; ++op_it) {
        const Event& op = *op_it;
        if (op.thread != m->thread) continue;
        auto seq = int_arg(op, "Sequence number");
        if (!seq || !seen.insert(*seq).second) continue;
        auto [lo, hi] = backward.equal_range(*seq);
        for (auto it = lo; it != hi; ++it)
          if (inside(*it->second, s)) bwd += clock.span(it->second->start, it->second->end);
      }
      add_time(&times, &out.order, name, fwd, bwd);
      forward += fwd;
      backward_total += bwd;
    }
    if (times.empty()) continue;
    add_step(&out, std::move(times), forward, backward_total, t, s, clock);
  }
  return out;
}

}  // namespace ddpsim::torch_trace
