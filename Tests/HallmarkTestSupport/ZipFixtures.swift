import Foundation

/// Vector D's files zipped by writers other than this repository's (Java, Python, Info-ZIP),
/// captured once as bytes: the zip reader's tests check its notion of the format against
/// theirs, and the fuzz targets start from them.
public enum ZipFixtures {
    public static let archives: [(writer: String, base64: String)] = [
        (
            "Java's ZipOutputStream (as Android builds zips): data descriptors, UTF-8 flag, MS-DOS host",
            [
                "UEsDBBQACAgIADqJdl0AAAAAAAAAAAAAAAAJAAAAaW5mby5qc29uq1ZKVLIyrAUAUEsHCK+sG1YJAAAABwAAAFBLAwQUAAgI",
                "CAA6iXZdAAAAAAAAAAAAAAAAEQAAAHNpX2xpdmVuZXNzXzEuanBn8/EMAwBQSwcIO61yJQUAAAADAAAAUEsDBBQACAgIADqJ",
                "dl0AAAAAAAAAAAAAAAAPAAAAc2lfc2VsZmllXzEuanBn+3/j/wOvAFd3F8cQRwBQSwcI1AHNtw4AAAAMAAAAUEsDBBQACAgI",
                "ADqJdl0AAAAAAAAAAAAAAAASAAAAc2VjdXJpdHlfaW5mby5qc29uq1bKTUxWslIyD85O9vKuDPH1sogMyDbIrXR0y0syiSoM",
                "cs4yCjZNrEqLKKzKzHMKC3JJtlXSUSrJzE0tLknMLQBqNTIwMtU1MASiEAMDKzDSMzAwiFKqBQBQSwcIP8M8Q1kAAABdAAAA",
                "UEsBAhQAFAAICAgAOol2Xa+sG1YJAAAABwAAAAkAAAAAAAAAAAAAAAAAAAAAAGluZm8uanNvblBLAQIUABQACAgIADqJdl07",
                "rXIlBQAAAAMAAAARAAAAAAAAAAAAAAAAAEAAAABzaV9saXZlbmVzc18xLmpwZ1BLAQIUABQACAgIADqJdl3UAc23DgAAAAwA",
                "AAAPAAAAAAAAAAAAAAAAAIQAAABzaV9zZWxmaWVfMS5qcGdQSwECFAAUAAgICAA6iXZdP8M8Q1kAAABdAAAAEgAAAAAAAAAA",
                "AAAAAADPAAAAc2VjdXJpdHlfaW5mby5qc29uUEsFBgAAAAAEAAQA8wAAAGgBAAAAAA==",
            ].joined()
        ),
        (
            "Python's zipfile streaming: data descriptors with signatures, zero local sizes",
            [
                "UEsDBBQACAAIAAAAIQAAAAAAAAAAAAAAAAAJAAAAaW5mby5qc29uq1ZKVLIyrAUAUEsHCK+sG1YJAAAABwAAAFBLAwQUAAgA",
                "CAAAACEAAAAAAAAAAAAAAAAAEQAAAHNpX2xpdmVuZXNzXzEuanBn8/EMAwBQSwcIO61yJQUAAAADAAAAUEsDBBQACAAIAAAA",
                "IQAAAAAAAAAAAAAAAAAPAAAAc2lfc2VsZmllXzEuanBn+3/j/wOvAFd3F8cQRwBQSwcI1AHNtw4AAAAMAAAAUEsDBBQACAAI",
                "AAAAIQAAAAAAAAAAAAAAAAASAAAAc2VjdXJpdHlfaW5mby5qc29uq1bKTUxWslIyD85O9vKuDPH1sogMyDbIrXR0y0syiSoM",
                "cs4yCjZNrEqLKKzKzHMKC3JJtlXSUSrJzE0tLknMLQBqNTIwMtU1MASiEAMDKzDSMzAwiFKqBQBQSwcIP8M8Q1kAAABdAAAA",
                "UEsBAhQDFAAIAAgAAAAhAK+sG1YJAAAABwAAAAkAAAAAAAAAAAAAAIABAAAAAGluZm8uanNvblBLAQIUAxQACAAIAAAAIQA7",
                "rXIlBQAAAAMAAAARAAAAAAAAAAAAAACAAUAAAABzaV9saXZlbmVzc18xLmpwZ1BLAQIUAxQACAAIAAAAIQDUAc23DgAAAAwA",
                "AAAPAAAAAAAAAAAAAACAAYQAAABzaV9zZWxmaWVfMS5qcGdQSwECFAMUAAgACAAAACEAP8M8Q1kAAABdAAAAEgAAAAAAAAAA",
                "AAAAgAHPAAAAc2VjdXJpdHlfaW5mby5qc29uUEsFBgAAAAAEAAQA8wAAAGgBAAAAAA==",
            ].joined()
        ),
        (
            "Python's zipfile with force_zip64: local ZIP64 extra fields, 32-bit central records",
            [
                "UEsDBC0AAAAIAAAAIQCvrBtW//////////8JABQAaW5mby5qc29uAQAQAAcAAAAAAAAACQAAAAAAAACrVkpUsjKsBQBQSwME",
                "LQAAAAgAAAAhADutciX//////////xEAFABzaV9saXZlbmVzc18xLmpwZwEAEAADAAAAAAAAAAUAAAAAAAAA8/EMAwBQSwME",
                "LQAAAAgAAAAhANQBzbf//////////w8AFABzaV9zZWxmaWVfMS5qcGcBABAADAAAAAAAAAAOAAAAAAAAAPt/4/8DrwBXdxfH",
                "EEcAUEsDBC0AAAAIAAAAIQA/wzxD//////////8SABQAc2VjdXJpdHlfaW5mby5qc29uAQAQAF0AAAAAAAAAWQAAAAAAAACr",
                "VspNTFayUjIPzk728q4M8fWyiAzINsitdHTLSzKJKgxyzjIKNk2sSosorMrMcwoLckm2VdJRKsnMTS0uScwtAGo1MjAy1TUw",
                "BKIQAwMrMNIzMDCIUqoFAFBLAQItAy0AAAAIAAAAIQCvrBtWCQAAAAcAAAAJAAAAAAAAAAAAAACAAQAAAABpbmZvLmpzb25Q",
                "SwECLQMtAAAACAAAACEAO61yJQUAAAADAAAAEQAAAAAAAAAAAAAAgAFEAAAAc2lfbGl2ZW5lc3NfMS5qcGdQSwECLQMtAAAA",
                "CAAAACEA1AHNtw4AAAAMAAAADwAAAAAAAAAAAAAAgAGMAAAAc2lfc2VsZmllXzEuanBnUEsBAi0DLQAAAAgAAAAhAD/DPENZ",
                "AAAAXQAAABIAAAAAAAAAAAAAAIAB2wAAAHNlY3VyaXR5X2luZm8uanNvblBLBQYAAAAABAAEAPMAAAB4AQAAAAA=",
            ].joined()
        ),
        (
            "Info-ZIP zip to a pipe: data descriptors, the uncompressed size known in the local header",
            [
                "UEsDBBQACAAIADmJdl0AAAAAAAAAAAcAAAAJAAAAaW5mby5qc29uq1ZKVLIyrAUAUEsHCK+sG1YJAAAABwAAAFBLAwQUAAgA",
                "CAA5iXZdAAAAAAAAAAADAAAAEQAAAHNpX2xpdmVuZXNzXzEuanBn8/EMAwBQSwcIO61yJQUAAAADAAAAUEsDBBQACAAIADmJ",
                "dl0AAAAAAAAAAAwAAAAPAAAAc2lfc2VsZmllXzEuanBn+3/j/wOvAFd3F8cQRwBQSwcI1AHNtw4AAAAMAAAAUEsDBBQACAAI",
                "ADmJdl0AAAAAAAAAAF0AAAASAAAAc2VjdXJpdHlfaW5mby5qc29uq1bKTUxWslIyD85O9vKuDPH1sogMyDbIrXR0y0syiSoM",
                "cs4yCjZNrEqLKKzKzHMKC3JJtlXSUSrJzE0tLknMLQBqNTIwMtU1MASiEAMDKzDSMzAwiFKqBQBQSwcIP8M8Q1kAAABdAAAA",
                "UEsBAh4DFAAIAAgAOYl2Xa+sG1YJAAAABwAAAAkAAAAAAAAAAQAAAKSBAAAAAGluZm8uanNvblBLAQIeAxQACAAIADmJdl07",
                "rXIlBQAAAAMAAAARAAAAAAAAAAEAAACkgUAAAABzaV9saXZlbmVzc18xLmpwZ1BLAQIeAxQACAAIADmJdl3UAc23DgAAAAwA",
                "AAAPAAAAAAAAAAEAAACkgYQAAABzaV9zZWxmaWVfMS5qcGdQSwECHgMUAAgACAA5iXZdP8M8Q1kAAABdAAAAEgAAAAAAAAAB",
                "AAAApIHPAAAAc2VjdXJpdHlfaW5mby5qc29uUEsFBgAAAAAEAAQA8wAAAGgBAAAAAA==",
            ].joined()
        ),
        (
            "Info-ZIP zip to a file: stored and deflated entries",
            [
                "UEsDBAoAAAAAADmJdl2vrBtWBwAAAAcAAAAJAAAAaW5mby5qc29ueyJhIjoxfVBLAwQKAAAAAAA5iXZdO61yJQMAAAADAAAA",
                "EQAAAHNpX2xpdmVuZXNzXzEuanBnTElWUEsDBAoAAAAAADmJdl3UAc23DAAAAAwAAAAPAAAAc2lfc2VsZmllXzEuanBn/9j/",
                "4EpQRUdEQVRBUEsDBBQAAAAIADmJdl0/wzxDWQAAAF0AAAASAAAAc2VjdXJpdHlfaW5mby5qc29uq1bKTUxWslIyD85O9vKu",
                "DPH1sogMyDbIrXR0y0syiSoMcs4yCjZNrEqLKKzKzHMKC3JJtlXSUSrJzE0tLknMLQBqNTIwMtU1MASiEAMDKzDSMzAwiFKq",
                "BQBQSwECHgMKAAAAAAA5iXZdr6wbVgcAAAAHAAAACQAAAAAAAAABAAAApIEAAAAAaW5mby5qc29uUEsBAh4DCgAAAAAAOYl2",
                "XTutciUDAAAAAwAAABEAAAAAAAAAAQAAAKSBLgAAAHNpX2xpdmVuZXNzXzEuanBnUEsBAh4DCgAAAAAAOYl2XdQBzbcMAAAA",
                "DAAAAA8AAAAAAAAAAQAAAKSBYAAAAHNpX3NlbGZpZV8xLmpwZ1BLAQIeAxQAAAAIADmJdl0/wzxDWQAAAF0AAAASAAAAAAAA",
                "AAEAAACkgZkAAABzZWN1cml0eV9pbmZvLmpzb25QSwUGAAAAAAQABADzAAAAIgEAAAAA",
            ].joined()
        ),
    ]

    /// The archives' bytes.
    public static var bytes: [[UInt8]] { archives.map { Array(Data(base64Encoded: $0.base64)!) } }
}
