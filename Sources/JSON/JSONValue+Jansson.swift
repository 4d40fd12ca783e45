import CJansson

extension JSONValue {
    /// Serializes by building a jansson tree and calling `json_dumpb` with
    /// `JSON_COMPACT` (or `JSON_INDENT(2)`) | `JSON_PRESERVE_ORDER` |
    /// `JSON_REAL_PRECISION(17)`.
    ///
    /// Kept as the reference the Swift writer is tested against and measured
    /// against; `serialized(_:)` is the one to use (faster, nicer doubles:
    /// jansson prints 0.1 as `0.10000000000000001`). Returns nil only when
    /// jansson cannot allocate or the value holds NaN/infinity.
    package func serializedWithJansson(_ layout: Layout = .compact) -> [UInt8]? {
        guard let tree = makeJanssonTree() else { return nil }
        defer { tonearm_json_decref(tree) }
        let flags = tonearm_json_dump_flags(layout == .pretty ? 2 : 0, 17)
        let size = json_dumpb(tree, nil, 0, flags)
        guard size > 0 else { return nil }
        return [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = json_dumpb(tree, UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self),
                               size, flags)
        }
    }

    /// A new jansson tree (reference count 1, owned by the caller) or nil on failure.
    func makeJanssonTree() -> UnsafeMutablePointer<json_t>? {
        switch self {
        case .null: return json_null()
        case .bool(let flag): return flag ? json_true() : json_false()
        case .int(let number): return json_integer(json_int_t(number))
        case .double(let number): return json_real(number)
        case .string(var text):
            return withCBytes(&text) { json_stringn_nocheck($0, $1) }
        case .array(let elements):
            guard let array = json_array() else { return nil }
            for element in elements {
                guard let child = element.makeJanssonTree(), json_array_append_new(array, child) == 0 else {
                    tonearm_json_decref(array)
                    return nil
                }
            }
            return array
        case .object(let object):
            guard let tree = json_object() else { return nil }
            for (key, value) in object.members {
                var key = key
                guard let child = value.makeJanssonTree() else {
                    tonearm_json_decref(tree)
                    return nil
                }
                let status = withCBytes(&key) { json_object_setn_new_nocheck(tree, $0, $1, child) }
                guard status == 0 else { tonearm_json_decref(tree); return nil }
            }
            return tree
        }
    }
}

/// Calls `body` with the string's UTF-8 bytes and count; never a null pointer
/// (jansson treats a null string as an error even when the length is 0).
private func withCBytes<R>(_ text: inout String, _ body: (UnsafePointer<CChar>, Int) -> R) -> R {
    text.withUTF8 { utf8 in
        guard let base = utf8.baseAddress, utf8.count > 0 else { return "".withCString { body($0, 0) } }
        return base.withMemoryRebound(to: CChar.self, capacity: utf8.count) { body($0, utf8.count) }
    }
}
