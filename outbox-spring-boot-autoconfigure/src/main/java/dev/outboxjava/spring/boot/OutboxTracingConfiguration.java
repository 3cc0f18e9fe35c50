package dev.outboxjava.spring.boot;

import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** With Micrometer Tracing in the application, appended events carry the current span's trace context. */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(Tracer.class)
class OutboxTracingConfiguration {

    @Bean
    @ConditionalOnBean(Tracer.class)
    @ConditionalOnMissingBean
    OutboxTraceContext outboxTraceContext(Tracer tracer) {
        return () -> {
            TraceContext context = tracer.currentTraceContext().context();
            if (context == null) {
                return null;
            }
            return "00-" + context.traceId() + "-" + context.spanId() + "-"
                    + (Boolean.TRUE.equals(context.sampled()) ? "01" : "00");
        };
    }
}
