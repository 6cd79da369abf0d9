import Foundation
import HallmarkFuzzTargets

// hallmark-fuzz: libFuzzer's driver over the target HALLMARK_FUZZ_TARGET names. Built only by
// deploy/local/fuzz (HALLMARK_FUZZ=1, -sanitize=fuzzer,address).
//
//   hallmark-fuzz --list               the targets, a line each
//   hallmark-fuzz --prepare DIR        every target's seeds (DIR/NAME/) and dictionary (DIR/NAME.dict)
//   HALLMARK_FUZZ_TARGET=NAME hallmark-fuzz [libFuzzer flags] CORPUS...
//
// libFuzzer's hooks do the work, so either entry point runs it: libFuzzer's own `main` (which
// a debug link keeps) or this module's, which SwiftPM's release link names `main`.

@_silgen_name("LLVMFuzzerRunDriver")
func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The target this process fuzzes, read once.
let selected: FuzzTarget? = ProcessInfo.processInfo.environment["HALLMARK_FUZZ_TARGET"].flatMap(FuzzTarget.named)

@_cdecl("hallmark_fuzz_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runDriver(&argc, &argv) { data, count in testOneInput(data, count) }
}

/// libFuzzer calls this once, before anything else: the commands that are not fuzzing end here.
@_cdecl("LLVMFuzzerInitialize")
func initialize(
    _ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
) -> CInt {
    let arguments = CommandLine.arguments
    if arguments.count == 2, arguments[1] == "--list" {
        for target in FuzzTarget.all { print("\(target.name)\t\(target.summary)") }
        exit(0)
    }
    if arguments.count == 3, arguments[1] == "--prepare" {
        exit(prepare(URL(fileURLWithPath: arguments[2])))
    }
    guard selected != nil else {
        let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("hallmark-fuzz: set HALLMARK_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    return 0
}

/// One input for the selected target; a thrown error is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = count == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: count))
    do {
        try selected!.run(bytes)
    } catch {
        // libFuzzer treats the abort as a crash: it saves the input and reports it.
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        abort()
    }
    return 0
}

/// Writes every target's seeds and dictionary under `directory`.
func prepare(_ directory: URL) -> CInt {
    do {
        for target in FuzzTarget.all {
            let seeds = directory.appendingPathComponent(target.name)
            try FileManager.default.createDirectory(at: seeds, withIntermediateDirectories: true)
            for (i, seed) in try target.seeds().enumerated() {
                try Data(seed).write(to: seeds.appendingPathComponent("seed-\(i)"))
            }
            try Data(target.dictionaryFile.utf8).write(to: directory.appendingPathComponent("\(target.name).dict"))
        }
        return 0
    } catch {
        FileHandle.standardError.write(Data("hallmark-fuzz: cannot write seeds: \(error)\n".utf8))
        return 1
    }
}
