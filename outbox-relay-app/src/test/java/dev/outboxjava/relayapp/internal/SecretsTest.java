package dev.outboxjava.relayapp.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("Masking secrets")
class SecretsTest {

    @Test
    @DisplayName("passwords in URLs: user information and secret parameters")
    void urls() {
        assertThat(Secrets.maskText("jdbc:postgresql://db:5432/app?user=relay&password=s3cret&ssl=true"))
                .isEqualTo("jdbc:postgresql://db:5432/app?user=relay&password=***&ssl=true");
        assertThat(Secrets.maskText("jdbc:postgresql://db/app?sslpassword=s3cret"))
                .isEqualTo("jdbc:postgresql://db/app?sslpassword=***");
        assertThat(Secrets.maskText("amqps://orders:s3cret@rabbit:5671/shop"))
                .isEqualTo("amqps://orders:***@rabbit:5671/shop");
        assertThat(Secrets.maskText("jdbc:postgresql://relay:s3cret@db/app"))
                .isEqualTo("jdbc:postgresql://relay:***@db/app");
        assertThat(Secrets.maskText("jdbc:postgresql://db:5432/app")).isEqualTo("jdbc:postgresql://db:5432/app");
    }

    @Test
    @DisplayName("JAAS configurations and name=value pairs whose name says secret")
    void jaas() {
        assertThat(Secrets.maskText("org.apache.kafka.common.security.plain.PlainLoginModule required "
                        + "username=\"relay\" password=\"s3cret\";"))
                .doesNotContain("s3cret")
                .contains("username=\"relay\"")
                .contains("password=***");
        assertThat(Secrets.maskText("token=abc client.secret='x y'"))
                .doesNotContain("abc")
                .doesNotContain("x y");
    }

    @Test
    @DisplayName("settings whose name contains password, secret or token are shown as ***")
    void names() {
        assertThat(Secrets.show("outbox.db.password", "s3cret")).isEqualTo("***");
        assertThat(Secrets.show("ssl.truststore.password", "s3cret")).isEqualTo("***");
        assertThat(Secrets.show("sasl.jaas.config", "anything")).isEqualTo("***");
        assertThat(Secrets.show("sasl.oauthbearer.token.endpoint.url", "https://idp"))
                .isEqualTo("***");
        assertThat(Secrets.show("api.secret", "x")).isEqualTo("***");
        assertThat(Secrets.show("outbox.db.password", "")).isEmpty();
        assertThat(Secrets.show("outbox.table", "outbox_events")).isEqualTo("outbox_events");
    }

    @Test
    @DisplayName("a known secret is masked wherever a message quotes it")
    void knownSecret() {
        assertThat(Secrets.maskText("FATAL: cannot use s3cret-value here", "s3cret-value"))
                .isEqualTo("FATAL: cannot use *** here");
    }
}
