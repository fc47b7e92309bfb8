// The rung chart's data without a window (app/gui/search/rung_series.h): which trials get a line,
// through which points, in what drawing order, with which end marker, name and colour index,
// and the rung ticks.
#include <cmath>

#include <gtest/gtest.h>

#include "gui/search/rung_series.h"

using pha::gui::RungLine;
using pha::gui::rungSeries;
using pha::search_runner::SearchRungPoint;
using pha::search_runner::SearchSummary;
using pha::search_runner::SearchTrialState;

namespace {

SearchTrialState trial(int bracket, int number, const std::string& state, std::vector<std::pair<double, double>> rungs) {
  SearchTrialState t;
  t.search = "pha-tiny";
  t.bracket = bracket;
  t.trial = number;
  t.state = state;
  t.label = "lr=" + std::to_string(number);
  int r = 0;
  for (const auto& [resource, mean] : rungs) {
    SearchRungPoint p;
    p.rung = r++;
    p.resource = resource;
    if (!std::isnan(mean)) p.mean = {mean};
    t.history.push_back(p);
  }
  return t;
}

}  // namespace

TEST(RungSeries, OneLinePerMeasuredTrialInDrawingOrderWithItsMarkers) {
  SearchSummary s;
  s.searches = {"pha-tiny"};
  s.objectives = {"val/loss"};
  s.trials = {trial(0, 0, "finished", {{30, 2.5}, {90, 2.2}, {270, 2.0}}),
              trial(0, 1, "stopped", {{30, 2.9}}),
              trial(0, 2, "promoted", {{30, 2.6}, {90, 2.3}}),
              trial(0, 3, "pending", {}),                      // nothing measured: no line
              trial(0, 4, "running", {{30, NAN}}),             // its rung not measured yet: no line, but its tick
              trial(0, 5, "failed", {{30, 3.1}}),
              trial(0, 6, "trained", {{30, 2.7}})};
  const auto series = rungSeries(s, {"pha-tiny:b0:t1"});
  ASSERT_EQ(series.lines.size(), 5u);
  // faded (failed), plain (trained), bold (finished, promoted), selected (the stopped t1) on top
  EXPECT_EQ(series.lines[0].trial, "pha-tiny:b0:t5");
  EXPECT_TRUE(series.lines[0].faded);
  EXPECT_EQ(series.lines[1].trial, "pha-tiny:b0:t6");
  EXPECT_EQ(series.lines[2].trial, "pha-tiny:b0:t0");
  EXPECT_EQ(series.lines[3].trial, "pha-tiny:b0:t2");
  EXPECT_TRUE(series.lines[2].bold && series.lines[3].bold);
  EXPECT_EQ(series.lines[4].trial, "pha-tiny:b0:t1");
  EXPECT_TRUE(series.lines[4].selected);
  EXPECT_FALSE(series.lines[4].faded) << "a selected stopped trial is drawn in full";
  EXPECT_TRUE(series.lines[4].named);
  EXPECT_FALSE(series.lines[1].named) << "plain lines carry no name";
  // markers: a cross where a trial stopped or failed, a disc where one finished
  EXPECT_EQ(series.lines[0].end, RungLine::End::Stopped);
  EXPECT_EQ(series.lines[4].end, RungLine::End::Stopped);
  EXPECT_EQ(series.lines[2].end, RungLine::End::Finished);
  EXPECT_EQ(series.lines[3].end, RungLine::End::None);
  EXPECT_EQ(series.stopped_markers, 2);
  // the finished trial's points, and the names of one search, one bracket
  EXPECT_EQ(series.lines[2].x, (std::vector<double>{30, 90, 270}));
  EXPECT_EQ(series.lines[2].y, (std::vector<double>{2.5, 2.2, 2.0}));
  EXPECT_EQ(series.lines[2].name, "t0");
  // every rung any trial reached is a tick, measured or not
  EXPECT_EQ(series.rungs, (std::vector<double>{30, 90, 270}));
  EXPECT_FALSE(series.by_search);
}

TEST(RungSeries, BracketsAndSearchesNameAndColourTheLines) {
  SearchSummary s;
  s.searches = {"pha-tiny", "sequential-tiny"};
  s.trials = {trial(0, 2, "trained", {{30, 2.5}}), trial(1, 2, "trained", {{90, 2.4}})};
  s.trials[1].search = "sequential-tiny";
  const auto series = rungSeries(s, {});
  ASSERT_EQ(series.lines.size(), 2u);
  EXPECT_TRUE(series.by_search) << "two base variants: coloured by variant";
  EXPECT_EQ(series.lines[0].name, "pha-tiny b0 t2");
  EXPECT_EQ(series.lines[1].name, "sequential-tiny b1 t2");
  EXPECT_EQ(series.lines[0].color_index, 2);
  EXPECT_EQ(series.lines[1].color_index, 9) << "trial + 7 x bracket: one colour per trial";
  EXPECT_EQ(series.lines[1].trial, "sequential-tiny:b1:t2");
}
