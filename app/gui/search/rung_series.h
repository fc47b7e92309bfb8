// The rung chart's data (RungChart draws it): from the engine's SearchSummary, one line per
// trial through its measured rungs (the first objective's mean against the rung's budget), in
// drawing order (stopped and failed faded first, then plain, bold, and the selected ones on
// top), each with its colour index, its end marker and whether it is named, and every rung's
// budget for the axis ticks. Plain C++, no Qt: tested without a window
// (tests/app/gui/search/test_rung_series.cpp).
#pragma once

#include <string>
#include <vector>

#include "search_runner/search_job.h"

namespace pha::gui {

// "pha-tiny:b0:t3": the trial's id for search_runner::promote_search_trial (`pha search --promote`).
std::string searchTrialIdText(const search_runner::SearchTrialState& t);
// "t3", "b1 t3" (Hyperband) or "pha-tiny t3" (more than one base variant searched).
std::string searchTrialNameText(const search_runner::SearchTrialState& t, bool withSearch, bool withBracket);

struct RungLine {
  std::string trial;               // searchTrialIdText
  std::string name;                // searchTrialNameText
  std::string label, state, search;
  std::vector<double> x, y;        // rung budget, first objective's mean (measured rungs only)
  bool bold = false;               // finished or promoted
  bool selected = false;           // in the leaderboard's selection: thicker, named, on top
  bool faded = false;              // stopped or failed and not selected
  enum class End { None, Stopped, Finished } end = End::None;  // a cross where it stopped, a disc where it finished
  bool named = false;              // its name written at its last point (selected or bold)
  int color_index = 0;             // one colour per trial: trial + 7 x bracket
};

struct RungSeries {
  std::vector<RungLine> lines;     // trials with a measured rung, in drawing order
  std::vector<double> rungs;       // every rung's budget any trial reached, ascending (the ticks)
  bool by_search = false;          // more than one base variant: colour by variant, not by trial
  int stopped_markers = 0;         // lines that end in a cross
};

RungSeries rungSeries(const search_runner::SearchSummary& summary, const std::vector<std::string>& selected);

}  // namespace pha::gui
