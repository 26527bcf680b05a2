import Vault

/// The console's pages: the shell every signed-in screen shares (header, navigation, sign-out) and
/// the sign-in form. Plain HTML: no script at all, one stylesheet.
enum ConsolePage {
    /// The screens, in navigation order: path under `/console/` and the link's name.
    static let screens: [(path: String, name: String)] = [
        ("cards", "Cards"), ("schedules", "Schedules"), ("review-queue", "Needs review"), ("transactions", "Transactions"), ("charge-runs", "Charge runs"),
        ("statistics", "Statistics"), ("audit", "Audit"), ("webhooks", "Webhooks"), ("settings", "Settings"),
    ]

    /// A page; with `refreshSeconds`, the browser loads it again after that many seconds (a
    /// `<meta http-equiv="refresh">`: no script, so the Content-Security-Policy holds).
    static func document(title: String, body: Markup, refreshSeconds: Int? = nil) -> String {
        let refresh: Markup = refreshSeconds.map { "<meta http-equiv=\"refresh\" content=\"\($0)\">" } ?? ""
        let page: Markup = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8">\(refresh)
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="referrer" content="same-origin">
            <title>\(title) · Vault console</title>
            <link rel="stylesheet" href="/console/\(ConsoleStylesheet.path)">
            </head><body>\(body)</body></html>
            """
        return page.html
    }

    /// A signed-in screen: the navigation (the current screen marked), who is signed in, the
    /// sign-out button carrying the session's CSRF token, and `content`.
    static func shell(current: String, title: String, account: Operator, csrf: String, content: Markup, refreshSeconds: Int? = nil) -> String {
        let links = screens.map { screen -> Markup in
            let currentMark: Markup = screen.path == current ? #" aria-current="page""# : ""
            return "<li><a href=\"/console/\(screen.path)\"\(currentMark)>\(screen.name)</a></li>"
        }
        let body: Markup = """
            <a class="visually-hidden skip" href="#main">Skip to content</a>
            <header><span class="brand">Vault console</span>
            <span class="who">\(account.name) · \(account.role.rawValue)</span>
            <nav aria-label="Main"><ul>\(links)
            <li><form method="post" action="/console/sign-out"><input type="hidden" name="csrf" value="\(csrf)"><button type="submit">Sign out</button></form></li>
            </ul></nav></header>
            <main id="main"><h1>\(title)</h1>\(content)</main>
            """
        return document(title: title, body: body, refreshSeconds: refreshSeconds)
    }

    /// The sign-in form, with a refusal message when there was one.
    static func signIn(message: String?, name: String = "") -> String {
        let notice: Markup = message.map { "<p class=\"notice error\" role=\"alert\">\($0)</p>" } ?? ""
        let body: Markup = """
            <main id="main" class="signin"><h1>Sign in</h1>\(notice)
            <form method="post" action="/console/sign-in" autocomplete="off">
            <label for="name">Name</label><input type="text" id="name" name="name" value="\(name)" required autocomplete="username" autocapitalize="none" spellcheck="false">
            <label for="password">Password</label><input type="password" id="password" name="password" required autocomplete="current-password">
            <label for="code">Authentication code</label><input type="text" id="code" name="code" required inputmode="numeric" pattern="[0-9]{6}" maxlength="6" autocomplete="one-time-code">
            <p><button type="submit">Sign in</button></p>
            </form></main>
            """
        return document(title: "Sign in", body: body)
    }

    /// A screen of a later version of the console.
    static func notBuilt(_ name: String) -> Markup {
        "<p class=\"notice\">The \(name) screen is not built yet: use the API or the vault command line for now.</p>"
    }
}
