package dev.outboxjava.console.internal;

import io.javalin.http.Context;
import io.javalin.router.JavalinDefaultRoutingApi;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every page of the console shares, whether it serves one outbox or many: the security headers,
 * the loopback rule, the sessions with their sign-in and sign-out, the message shown after a redirect,
 * the style sheet and the page layout. The pages of one outbox ({@link ConsoleRoutes}) and the list of
 * many ({@link OutboxesRoutes}) all render through it, so one sign-in holds for every outbox.
 */
public final class ConsoleShell {

    private static final Logger log = LoggerFactory.getLogger(ConsoleShell.class);
    private static final String COOKIE = "outbox_console_session";
    private static final String CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'";
    private static final String CSS = readCss();

    /** The console's own path: the style sheet, the sign-in, the session cookie's path and the first page. */
    private final String root;

    private final Sessions sessions;
    private final Clock clock;
    /** One message to show after a redirect, per session. */
    private final Map<String, String> flash = new java.util.concurrent.ConcurrentHashMap<>();
    /** Whether clients other than this machine may use the console. */
    private final boolean allowRemoteClients;

    private final SignInThrottle signInThrottle;
    /** The navigation of the pages that belong to no outbox: sign-in, and a refused sign-out. */
    private final Nav loginNav;

    /**
     * @param many whether the console serves many outboxes, and so the pages of none (sign-in) link their list
     */
    public ConsoleShell(
            String root,
            boolean many,
            Optional<String> adminCredential,
            Clock clock,
            boolean allowRemoteClients,
            int signInFailuresPerMinute) {
        this.root = root;
        this.loginNav = many ? Nav.outboxList() : Nav.oneOutbox(root);
        this.sessions = new Sessions(adminCredential, clock);
        this.clock = clock;
        this.allowRemoteClients = allowRemoteClients;
        this.signInThrottle = new SignInThrottle(signInFailuresPerMinute, clock);
    }

    /** Whether changes are allowed (an admin credential is configured). */
    public boolean writable() {
        return sessions.writable();
    }

    String root() {
        return root;
    }

    Sessions sessions() {
        return sessions;
    }

    Clock clock() {
        return clock;
    }

    /**
     * Adds what every page needs: the headers and the loopback rule before each request under the root,
     * the style sheet, sign-in and sign-out.
     */
    void registerShared(JavalinDefaultRoutingApi routes) {
        routes.before(root + "/*", this::headers);
        routes.before(root, this::headers);
        routes.before(root + "/*", this::localClientsOnly);
        routes.before(root, this::localClientsOnly);
        routes.get(root + "/style.css", ctx -> ctx.contentType("text/css").result(CSS));
        routes.get(root + "/login", ctx -> page(ctx, loginNav, "login", "Sign in", loginForm(Optional.empty()), 0));
        routes.post(root + "/login", this::login);
        routes.post(root + "/logout", this::logout);
    }

    /**
     * Refuses a client that is not on this machine, unless remote clients are allowed: the console may
     * share its port with endpoints that must answer everyone (health probes, metrics). The socket's
     * address decides, never a forwarding header a client could write.
     */
    private void localClientsOnly(Context ctx) {
        if (allowRemoteClients || isLoopback(ctx.req().getRemoteAddr())) {
            return;
        }
        ctx.status(403)
                .contentType("text/plain; charset=utf-8")
                .result("The web console answers only clients on "
                        + "this machine (reach it through an SSH tunnel or kubectl port-forward); remote clients are allowed "
                        + "only when the console is configured to allow them, behind a proxy that authenticates.\n");
        ctx.skipRemainingHandlers();
    }

    private static boolean isLoopback(String address) {
        try {
            return address != null && java.net.InetAddress.getByName(address).isLoopbackAddress();
        } catch (java.net.UnknownHostException e) {
            return false; // a literal address never needs a lookup; anything else is not trusted
        }
    }

    private void headers(Context ctx) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cache-Control", "no-store");
        ctx.header("X-Frame-Options", "DENY");
    }

    Optional<Sessions.Session> session(Context ctx) {
        return sessions.find(ctx.cookie(COOKIE));
    }

    /** Redirects (303) to {@code path}, showing {@code message} on the page it leads to. */
    void redirectWith(Context ctx, Sessions.Session session, String path, String message) {
        flash.put(session.id(), message);
        ctx.redirect(path, io.javalin.http.HttpStatus.SEE_OTHER);
    }

    private String takeFlash(Context ctx) {
        return session(ctx)
                .map(s -> flash.remove(s.id()))
                .map(message -> "<div class=\"notice\" id=\"notice\">" + Html.text(message) + "</div>")
                .orElse("");
    }

    private void login(Context ctx) {
        String name = Optional.ofNullable(ctx.formParam("operator")).orElse("").trim();
        if (name.isEmpty() || name.length() > 100) {
            name = "admin";
        }
        String client = ctx.req().getRemoteAddr();
        Optional<java.time.Duration> blocked = signInThrottle.blockedFor(client);
        if (blocked.isPresent()) {
            long seconds = Math.max(1, (blocked.get().toMillis() + 999) / 1000);
            log.warn("console sign-in from {} refused without checking: too many wrong credentials", client);
            ctx.status(429).header("Retry-After", Long.toString(seconds));
            page(
                    ctx,
                    loginNav,
                    "login",
                    "Sign in",
                    loginForm(Optional.of("Too many wrong credentials from your address: try " + "again in " + seconds
                            + " s. Nothing was checked.")),
                    0);
            return;
        }
        Optional<Sessions.Session> session = sessions.signIn(ctx.formParam("credential"), name + " (console)");
        if (session.isEmpty()) {
            if (sessions.writable()) {
                signInThrottle.failed(client);
            }
            log.warn("console sign-in refused from {}", ctx.ip());
            ctx.status(401);
            page(
                    ctx,
                    loginNav,
                    "login",
                    "Sign in",
                    loginForm(Optional.of(
                            sessions.writable()
                                    ? "That is not the admin credential."
                                    : "The console is read-only: no admin credential is configured.")),
                    0);
            return;
        }
        signInThrottle.succeeded(client);
        ctx.header(
                "Set-Cookie",
                COOKIE + "=" + session.get().id() + "; Path=" + root + "; HttpOnly; SameSite=Strict; Max-Age="
                        + Sessions.LIFETIME.toSeconds());
        log.info("console: {} signed in", session.get().operator());
        ctx.redirect(root, io.javalin.http.HttpStatus.SEE_OTHER);
    }

    private void logout(Context ctx) {
        Optional<Sessions.Session> session = session(ctx);
        if (session.isPresent()) {
            if (!Sessions.csrfMatches(session.get(), ctx.formParam("csrf"))) {
                // a forged sign-out (another site's form) must not end the operator's session either
                ctx.status(403);
                page(
                        ctx,
                        loginNav,
                        "",
                        "Not done",
                        "<div class=\"problem\" id=\"problem\">The form's security token is missing or stale (reload "
                                + "the page and sign out again). You are still signed in.</div>",
                        0);
                return;
            }
            sessions.signOut(session.get().id());
        }
        ctx.header("Set-Cookie", COOKIE + "=; Path=" + root + "; HttpOnly; SameSite=Strict; Max-Age=0");
        ctx.redirect(root, io.javalin.http.HttpStatus.SEE_OTHER);
    }

    private String loginForm(Optional<String> problem) {
        return problem.map(p -> "<div class=\"problem\" id=\"problem\">" + Html.text(p) + "</div>")
                        .orElse("")
                + (sessions.writable() ? "" : "<p>No admin credential is configured: the console is read-only.</p>")
                + "<form method=\"post\" action=\"" + root + "/login\" id=\"login\">"
                + "<p><label>Your name (for the audit trail) <input name=\"operator\" id=\"operator\" maxlength=\"100\"></label></p>"
                + "<p><label>Admin credential <input type=\"password\" name=\"credential\" id=\"credential\" "
                + "autocomplete=\"current-password\"></label></p>"
                + "<p><button type=\"submit\" id=\"sign-in\">Sign in</button></p></form>";
    }

    // ---------------------------------------------------------------- layout

    /**
     * A page; one with {@code refreshSeconds} over 0 reloads itself that often and says when it was read.
     *
     * @param nav     the outbox whose pages the header links
     * @param current the navigation entry marked as the current one ({@code overview}, {@code dead-letters}…)
     */
    void page(Context ctx, Nav nav, String current, String title, String body, int refreshSeconds) {
        Optional<Sessions.Session> session = session(ctx);
        StringBuilder html = new StringBuilder(8192);
        html.append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">");
        if (refreshSeconds > 0) {
            html.append("<meta http-equiv=\"refresh\" content=\"")
                    .append(refreshSeconds)
                    .append("\">");
        }
        html.append("<title>")
                .append(Html.text(title))
                .append(nav.label().map(label -> " · " + Html.text(label)).orElse(""))
                .append(" · Outbox console</title><link rel=\"stylesheet\" href=\"")
                .append(root)
                .append("/style.css\"></head><body><header><strong>Outbox console</strong>");
        html.append(nav.render(root, current));
        html.append("<span class=\"who\">");
        if (session.isPresent()) {
            html.append("signed in as ")
                    .append(Html.text(session.get().operator()))
                    .append(" <form method=\"post\" action=\"")
                    .append(root)
                    .append("/logout\">")
                    .append(csrf(session.get()))
                    .append("<button type=\"submit\" id=\"sign-out\">Sign out</button></form>");
        } else if (sessions.writable()) {
            html.append("read-only · <a href=\"")
                    .append(root)
                    .append("/login\" id=\"nav-login\">sign in to make changes</a>");
        } else {
            html.append("read-only (no admin credential configured)");
        }
        html.append("</span></header><main><h1>").append(Html.text(title)).append("</h1>");
        if (refreshSeconds > 0) {
            html.append("<p class=\"read-at\" id=\"read-at\">read at ")
                    .append(Html.instant(clock.instant()))
                    .append(", again every ")
                    .append(refreshSeconds)
                    .append(" s</p>");
        }
        html.append(takeFlash(ctx)).append(body).append("</main></body></html>");
        ctx.html(html.toString());
    }

    static String csrf(Sessions.Session session) {
        return "<input type=\"hidden\" name=\"csrf\" value=\"" + Html.text(session.csrfToken()) + "\">";
    }

    private static String readCss() {
        try (InputStream in = ConsoleShell.class.getResourceAsStream("/dev/outboxjava/console/console.css")) {
            if (in == null) {
                throw new IllegalStateException("console.css is missing from the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
