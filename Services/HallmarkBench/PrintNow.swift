import Foundation

/// Prints a line and flushes it: a bench's results appear as they come, also when stdout is a
/// file.
func printNow(_ line: String) {
    print(line)
    fflush(nil)
}
