import COpenSSL

/// HMAC-SHA256 through the system's OpenSSL libcrypto, for webhook signatures. Any thread.
enum HMACSHA256 {
    /// The 32-byte MAC of `data` under `key`.
    static func mac(key: [UInt8], data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        let ok = key.withUnsafeBytes { k in
            data.withUnsafeBufferPointer { d in
                out.withUnsafeMutableBufferPointer { o in
                    tonearm_hmac_sha256(k.baseAddress, Int32(k.count), d.baseAddress, d.count, o.baseAddress)
                }
            }
        }
        precondition(ok == 1, "libcrypto HMAC-SHA256 failed")
        return out
    }

    /// The MAC as lowercase hex.
    static func hex(key: [UInt8], data: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for b in mac(key: key, data: data) {
            text.append(digits[Int(b >> 4)])
            text.append(digits[Int(b & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
