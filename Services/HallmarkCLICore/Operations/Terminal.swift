#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Foundation

/// The terminal while `hallmark top` draws: the alternate screen, no cursor, keys read one at a
/// time without echo (Ctrl-C still signals). ``restore()`` puts everything back, also when the
/// program ends on a signal.
final class Terminal: @unchecked Sendable {
    private var saved = termios()
    private let interactive: Bool
    private var restored = false
    private let lock = NSLock()

    init() {
        interactive = isatty(STDIN_FILENO) == 1 && isatty(STDOUT_FILENO) == 1
        guard interactive else { return }
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        write("\u{1B}[?1049h\u{1B}[?25l")
    }

    /// Draws a frame over the previous one.
    func draw(_ lines: [String]) {
        write("\u{1B}[H" + lines.map { $0 + "\u{1B}[K" }.joined(separator: "\r\n") + "\u{1B}[J")
    }

    func restore() {
        lock.lock(); defer { lock.unlock() }
        guard interactive, !restored else { return }
        restored = true
        write("\u{1B}[?25h\u{1B}[?1049l")
        tcsetattr(STDIN_FILENO, TCSANOW, &saved)
    }

    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    /// Calls `quit` once on `q`, `Q` or end of input, read on a thread of its own (a blocking
    /// read never runs on Swift's cooperative pool).
    static func watchKeys(_ quit: @escaping @Sendable () -> Void) {
        let thread = Thread {
            var byte: UInt8 = 0
            while read(STDIN_FILENO, &byte, 1) == 1 {
                if byte == UInt8(ascii: "q") || byte == UInt8(ascii: "Q") { break }
            }
            quit()
        }
        thread.name = "hallmark-top-keys"
        thread.start()
    }
}
