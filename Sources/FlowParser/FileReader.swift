import Foundation

/// Reads files with a size limit checked before reading: specs, and the OpenAPI descriptions
/// they name (FlowOpenAPI).
public enum FileReader {
    public struct Problem: Error {
        public var message: String
        public var isTooLarge: Bool = false
        public var isMissing: Bool = false
    }

    public static func read(_ path: String, limit: Int) -> Result<[UInt8], Problem> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(Problem(message: "no such file", isMissing: true))
        }
        if isDirectory.boolValue { return .failure(Problem(message: "is a directory, not a file")) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(Problem(message: "cannot be opened for reading (permissions?)"))
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            if data.count > limit {
                return .failure(Problem(message: "file is over the \(limit)-byte limit for a spec", isTooLarge: true))
            }
            return .success([UInt8](data))
        } catch {
            return .failure(Problem(message: "cannot be read: \(error.localizedDescription)"))
        }
    }
}
