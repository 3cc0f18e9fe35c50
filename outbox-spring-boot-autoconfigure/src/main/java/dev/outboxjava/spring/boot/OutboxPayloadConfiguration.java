package dev.outboxjava.spring.boot;

import dev.outboxjava.core.PayloadSerializer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.json.JsonMapper;

/**
 * The serializer of event payloads: the application's own {@link PayloadSerializer} bean; else JSON by
 * its Jackson 3 {@link JsonMapper} (Spring Boot's, with {@code spring.jackson.*}); else JSON by a
 * default Jackson mapper ({@link dev.outboxjava.postgres.JsonPayloadSerializer}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(JsonMapper.class)
class OutboxPayloadConfiguration {

    @Bean
    @ConditionalOnMissingBean(PayloadSerializer.class)
    @ConditionalOnBean(JsonMapper.class)
    JsonMapperPayloadSerializer outboxPayloadSerializer(JsonMapper mapper) {
        return new JsonMapperPayloadSerializer(mapper);
    }
}
