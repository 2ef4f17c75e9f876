// The tuner's decision over its confirmation (hhlo/program/tune_decision.h).
#include "hhlo/program/tune_decision.h"

namespace hhlo {

TuneDecision decide_tuned(const ConfirmedMedians& defaults,
                          const std::vector<ConfirmedMedians>& candidates, double noise) {
  TuneDecision d;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const ConfirmedMedians& c = candidates[i];
    TuneVerdict v = TuneVerdict::faster;
    if (!(c.idle_us < defaults.idle_us * (1 - noise)))
      v = TuneVerdict::idle_not_faster;
    else if (defaults.loaded_us && !c.loaded_us)
      v = TuneVerdict::not_timed_under_load;
    else if (defaults.loaded_us && !(*c.loaded_us <= *defaults.loaded_us * (1 + noise)))
      v = TuneVerdict::slower_under_load;
    d.verdicts.push_back(v);
    if (v == TuneVerdict::faster && (!d.chosen || c.idle_us < candidates[*d.chosen].idle_us))
      d.chosen = i;
  }
  return d;
}

}  // namespace hhlo
