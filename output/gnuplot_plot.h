// File: output/gnuplot_plot.h
//
// Drawing a plot with gnuplot (http://gnuplot.info/docs/), for `simulate
// --plot`: data files and a script in a fresh temporary directory of the
// call's own (removed afterwards), the terminal chosen by the output's
// extension (.svg: svg, .png: pngcairo).
//
// Errors: kInvalidArgument for another extension; kNotFound when gnuplot
// cannot be run; kUnknown when it fails; kInternal when its files cannot be
// written.
// Thread safety: may be called concurrently (each call has its own directory).
#ifndef CARBONROUTE_OUTPUT_GNUPLOT_PLOT_H_
#define CARBONROUTE_OUTPUT_GNUPLOT_PLOT_H_

#include <map>
#include <string>

#include "absl/status/status.h"

namespace carbonroute::scheduler_lite {

// Whether `path` names a plot file this build can write (.svg or .png).
bool IsPlotPath(const std::string& path);

// gnuplot's single-quoted string: a quote inside is written twice.
std::string GnuplotQuoted(const std::string& text);

// Writes each of `data` (file name → content) into the directory, then runs
// `script` after the terminal and output lines; in `script`, "$DIR/" stands
// for that directory (quoted file names: GnuplotQuoted("$DIR/name")).
absl::Status DrawWithGnuplot(const std::string& path, int width, int height,
                             const std::map<std::string, std::string>& data,
                             const std::string& script);

}  // namespace carbonroute::scheduler_lite

#endif  // CARBONROUTE_OUTPUT_GNUPLOT_PLOT_H_
