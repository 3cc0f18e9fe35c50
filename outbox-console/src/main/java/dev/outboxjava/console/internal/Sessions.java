package dev.outboxjava.console.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The operators signed in with the admin credential. A session is a random id in an HttpOnly,
 * SameSite=Strict cookie; it carries its own random CSRF token, which every state-changing form
 * sends back. Credentials and tokens are compared in constant time (as digests, so not even their
 * length leaks). Sessions live in memory: a restart signs everyone out.
 */
public final class Sessions {

    /** How long a session lasts after sign-in. */
    public static final Duration LIFETIME = Duration.ofHours(8);

    private static final int MAX_SESSIONS = 1000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Optional<byte[]> credentialDigest;
    private final Clock clock;
    private final Map<String, Session> sessions = new ConcurrentHashMap<>();

    /** One signed-in operator. */
    public record Session(String id, String operator, String csrfToken, Instant expires) {}

    public Sessions(Optional<String> adminCredential, Clock clock) {
        this.credentialDigest =
                adminCredential.filter(value -> !value.isEmpty()).map(Sessions::digest);
        this.clock = clock;
    }

    /** Whether an admin credential is configured (else the console is read-only). */
    public boolean writable() {
        return credentialDigest.isPresent();
    }

    /** A new session when {@code credential} is the admin credential; empty otherwise. */
    public Optional<Session> signIn(String credential, String operator) {
        if (credentialDigest.isEmpty()
                || credential == null
                || !MessageDigest.isEqual(credentialDigest.get(), digest(credential))) {
            return Optional.empty();
        }
        evictExpired();
        if (sessions.size() >= MAX_SESSIONS) {
            return Optional.empty();
        }
        Session session = new Session(
                randomToken(), operator, randomToken(), clock.instant().plus(LIFETIME));
        sessions.put(session.id(), session);
        return Optional.of(session);
    }

    /** The live session with this id. */
    public Optional<Session> find(String id) {
        if (id == null || id.isEmpty()) {
            return Optional.empty();
        }
        Session session = sessions.get(id);
        if (session == null) {
            return Optional.empty();
        }
        if (!session.expires().isAfter(clock.instant())) {
            sessions.remove(id);
            return Optional.empty();
        }
        return Optional.of(session);
    }

    /** Whether {@code presented} is the session's CSRF token (constant time). */
    public static boolean csrfMatches(Session session, String presented) {
        return presented != null && MessageDigest.isEqual(digest(session.csrfToken()), digest(presented));
    }

    public void signOut(String id) {
        if (id != null) {
            sessions.remove(id);
        }
    }

    private void evictExpired() {
        Instant now = clock.instant();
        for (Iterator<Session> it = sessions.values().iterator(); it.hasNext(); ) {
            if (!it.next().expires().isAfter(now)) {
                it.remove();
            }
        }
    }

    private static String randomToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static byte[] digest(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
