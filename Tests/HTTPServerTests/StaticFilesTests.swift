import TestSupport
import Testing
import HTTPServer
#if canImport(Glibc)
import Glibc
#endif

@Suite struct StaticFilesTests {
    static func site() -> (root: String, outside: String) {
        let base = makeTempDirectory()
        let root = base + "/public"
        mkdir(root, 0o755)
        mkdir(root + "/js", 0o755)
        writeFile(root + "/index.html", "<h1>home</h1>")
        writeFile(root + "/js/app.js", "export {}")
        writeFile(root + "/js/mod.mjs", "export {}")
        writeFile(root + "/style.css", "body{}")
        writeFile(root + "/openapi.yaml", "openapi: 3.1.0")
        writeFile(root + "/icon.svg", "<svg/>")
        writeFile(base + "/secret.txt", "secret")
        symlink(base + "/secret.txt", root + "/leak.txt")
        symlink(base, root + "/up")
        symlink(root + "/style.css", root + "/alias.css")
        return (root, base)
    }

    @Test func servesFilesWithTypesAndETags() throws {
        let (root, _) = Self.site()
        let server = try startServer { s in
            try s.serveStatic(directory: root)
            s.route("GET", "/api/x") { _ in .text("api") }
        }
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        let index = try c.request("GET", "/")
        #expect(index.status == 200)
        #expect(index.text == "<h1>home</h1>")
        #expect(index.header("Content-Type") == "text/html; charset=utf-8")
        #expect(index.header("Cache-Control") == "no-cache")
        #expect(try c.request("GET", "/js/app.js").header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(try c.request("GET", "/js/mod.mjs").header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(try c.request("GET", "/style.css").header("Content-Type") == "text/css; charset=utf-8")
        #expect(try c.request("GET", "/openapi.yaml").header("Content-Type") == "application/yaml")
        #expect(try c.request("GET", "/icon.svg").header("Content-Type") == "image/svg+xml")
        #expect(try c.request("GET", "/alias.css").status == 200) // symlink inside the folder
        #expect(try c.request("GET", "/api/x").text == "api")

        let etag = try #require(index.header("ETag"))
        let again = try c.request("GET", "/index.html", headers: ["If-None-Match": etag])
        #expect(again.status == 304)
        #expect(again.header("ETag") == etag)
        let head = try c.request("HEAD", "/style.css")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "6")
        #expect(try c.request("GET", "/index.html", headers: ["If-None-Match": "\"other\""]).status == 200)
        #expect(try c.request("GET", "/missing.js").status == 404)
    }

    @Test func cannotLeaveTheFolder() throws {
        let (root, _) = Self.site()
        let server = try startServer { s in try s.serveStatic(directory: root) }
        defer { server.stop() }
        let c = try RawHTTPClient(port: server.port)
        for target in ["/../secret.txt", "/js/../../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E%2Fsecret.txt",
                       "/js/%2e%2e/%2e%2e/secret.txt", "/leak.txt", "/up/secret.txt",
                       "/..%5csecret.txt"] {
            let r = try c.request("GET", target)
            #expect(r.status == 404, "\(target)")
            #expect(!r.text.contains("secret") || r.text.contains("no resource"), "\(target)")
        }
        #expect(try c.request("GET", "/js/../index.html").status == 404)
        // A symlink that leaves and comes back in resolves inside: allowed.
        #expect(try c.request("GET", "/up/public/index.html").status == 200)
    }
}
