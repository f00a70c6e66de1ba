#include "output/gnuplot_plot.h"

#include <stdlib.h>  // mkdtemp

#include <filesystem>
#include <fstream>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "base/run_program.h"

namespace carbonroute::scheduler_lite {

bool IsPlotPath(const std::string& path) {
  return absl::EndsWith(path, ".svg") || absl::EndsWith(path, ".png");
}

std::string GnuplotQuoted(const std::string& text) {
  return absl::StrCat("'", absl::StrReplaceAll(text, {{"'", "''"}}), "'");
}

absl::Status DrawWithGnuplot(const std::string& path, int width, int height,
                             const std::map<std::string, std::string>& data,
                             const std::string& script) {
  if (!IsPlotPath(path)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--plot: \"", path, "\" must end in .svg or .png"));
  }
  std::string dir_template =
      (std::filesystem::temp_directory_path() / "scheduler-lite-plot-XXXXXX").string();
  if (mkdtemp(dir_template.data()) == nullptr) {
    return absl::InternalError(absl::StrCat("cannot create a directory for gnuplot's input in ",
                                            std::filesystem::temp_directory_path().string()));
  }
  const std::filesystem::path dir(dir_template);
  const absl::Cleanup remove_dir = [&dir] {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  };
  for (const auto& [name, content] : data) {
    const std::filesystem::path file_path = dir / name;
    std::ofstream file(file_path);
    file << content;
    if (!file) return absl::InternalError(absl::StrCat("cannot write ", file_path.string()));
  }
  const bool svg = absl::EndsWith(path, ".svg");
  const std::string full = absl::StrCat(
      svg ? absl::StrFormat("set terminal svg size %d,%d dynamic font 'sans,11'\n", width, height)
          : absl::StrFormat("set terminal pngcairo size %d,%d font 'sans,10'\n", width, height),
      "set output ", GnuplotQuoted(std::filesystem::absolute(path).string()), "\n",
      absl::StrReplaceAll(script, {{"$DIR/", (dir / "").string()}}));
  const std::filesystem::path script_path = dir / "plot.gp";
  {
    std::ofstream file(script_path);
    file << full;
    if (!file) return absl::InternalError(absl::StrCat("cannot write ", script_path.string()));
  }
  absl::Status status = RunProgram("gnuplot", {script_path.string()});
  if (absl::IsNotFound(status)) {
    return absl::NotFoundError(absl::StrCat(status.message(), "; install gnuplot-nox for --plot"));
  }
  return status;
}

}  // namespace carbonroute::scheduler_lite
