// The libFuzzer plumbing every fuzz target shares: the `LLVMFuzzerTestOneInput` entry point
// libFuzzer links against, and a driver call with the process's arguments. A target is one
// function over the input's bytes, handed to `runFuzzer`.
import CFuzzer
#if canImport(Glibc)
import Glibc
#endif

/// The target's function; set once by `runFuzzer` before libFuzzer calls anything.
nonisolated(unsafe) private var target: ([UInt8]) -> Void = { _ in }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    target(size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// Runs libFuzzer's driver over `body` with the command line's arguments; exits with its status.
public func runFuzzer(_ body: @escaping ([UInt8]) -> Void) -> Never {
    target = body
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, { data, size in fuzzOneInput(data, size) }))
}
