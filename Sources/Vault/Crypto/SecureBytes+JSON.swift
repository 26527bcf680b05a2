import Foundation

extension SecureBytes {
    /// Decodes JSON straight from the locked bytes, without copying them into ordinary memory
    /// first; only the fields `T` names become Swift values.
    public func decodeJSON<T: Decodable>(_ type: T.Type) throws -> T {
        try withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return try JSONDecoder().decode(T.self, from: Data())
            }
            let borrowed = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none)
            return try JSONDecoder().decode(T.self, from: borrowed)
        }
    }
}
