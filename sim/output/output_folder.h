// Output folders are checked before anything is simulated, so a wrong -o is bad input (exit 2)
// that leaves nothing behind, not an internal error after the run.
#pragma once

#include <string>

namespace ddpsim {

// Throws InputError at `dir` when results could not be written there: it is a file or a device
// such as /dev/null, a folder on its way is a file, or it (or, when missing, the folder it would
// be created in) does not let a file be created. `option` names the option that chose it ("-o").
// Creates nothing: the writers create the folder with the first file they write.
void check_output_folder(const std::string& dir, const std::string& option);

// The same for a file ddpsim writes (`compare --csv FILE`, `calibrate -o FILE`): it must be a
// regular file or missing; /dev/null or a folder in its place is refused (as root, an atomic
// rename would otherwise replace the device node itself).
void check_output_file(const std::string& path, const std::string& option);

}  // namespace ddpsim
