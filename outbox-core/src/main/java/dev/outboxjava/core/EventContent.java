package dev.outboxjava.core;

import java.util.Optional;

/**
 * The content rules an event must meet wherever it comes from (the builder, or an event assembled
 * some other way and handed to a store): storable text in every text field, a URI-reference
 * source, accepted headers within their total size, and storable times. The payload limit is the
 * builder's, since its maximum is the caller's choice.
 */
final class EventContent {

    private EventContent() {}

    /** @throws InvalidEventException naming the first field that breaks a rule */
    static void check(OutboxEvent event) {
        StorableText.require("type", "the type", event.type());
        StorableText.require("source", "the source", event.source());
        SourceUri.require(event.source());
        Optional<String> key = event.key();
        if (key.isPresent()) {
            StorableText.require("key", "the key", key.get());
        }
        StorableText.require("destination", "the destination", event.destination());
        StorableText.require("routingKey", "the routing key", event.routingKey());
        StorableText.require("contentType", "the content type", event.contentType());
        ShortStringBytes.require("type", event.type());
        ShortStringBytes.require("destination", event.destination());
        ShortStringBytes.require("routingKey", event.routingKey());
        ShortStringBytes.require("contentType", event.contentType());
        Optional<String> subject = event.subject();
        if (subject.isPresent()) {
            StorableText.require("subject", "the subject", subject.get());
        }
        Optional<String> dataSchema = event.dataSchema();
        if (dataSchema.isPresent()) {
            StorableText.require("dataSchema", "the data schema", dataSchema.get());
            DataSchemaUri.require(dataSchema.get());
        }
        event.headers().forEach(EventHeaders::check);
        HeadersSize.require(event.headers());
        StorableInstant.require("availableAt", event.nextAttemptAt());
        StorableInstant.require("createdAt", event.createdAt());
    }
}
