/// Where a player's sound comes from: a file under a media root, or uploaded bytes kept
/// in the state directory. A plain value; any thread.
package enum PlayerSource: Sendable, Equatable {
    /// `path` is the resolved real path; `url` is its `file://` form.
    case file(path: String, url: String)
    /// `path` is the stored upload in the state directory.
    case upload(path: String)

    var path: String {
        switch self {
        case let .file(path, _), let .upload(path): path
        }
    }

    var url: String? {
        if case let .file(_, url) = self { return url }
        return nil
    }
}
