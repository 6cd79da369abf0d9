import HallmarkCLICore

/// The `hallmark` executable: wiring only; the commands live in HallmarkCLICore.
@main
enum HallmarkCLI {
    static func main() async {
        await HallmarkCommand.main(nil)
    }
}
