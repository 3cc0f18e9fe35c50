package dev.outboxjava.core.inbox;

import dev.outboxjava.core.InvalidConfigurationException;

/**
 * Identifies one processing of one message: which consumer, which message. The same message id
 * processed by two consumers (two services, or two handlers in one service) counts once for each.
 *
 * @param consumerName a stable name of the consumer, e.g. {@code shipping.order-placed}; 1 to
 *                     {@value #MAX_CONSUMER_NAME_LENGTH} characters, not blank
 * @param messageId    the message's id (the CloudEvents id of an outbox event); 1 to
 *                     {@value #MAX_MESSAGE_ID_LENGTH} characters, not blank
 */
public record InboxKey(String consumerName, String messageId) {

    /** Longest consumer name accepted. */
    public static final int MAX_CONSUMER_NAME_LENGTH = 200;
    /** Longest message id accepted (the longest AMQP {@code message_id} is 255 bytes too). */
    public static final int MAX_MESSAGE_ID_LENGTH = 255;

    /**
     * @throws InvalidConfigurationException  (setting {@code inbox.consumerName}) when the consumer name is unusable
     * @throws UnidentifiableMessageException when the message id is unusable
     */
    public InboxKey {
        requireValidConsumerName(consumerName);
        if (messageId == null || messageId.isBlank()) {
            throw new UnidentifiableMessageException("the message has no id, so consumer '" + consumerName
                    + "' cannot deduplicate it; publish it with a CloudEvents id (every outbox event has one)");
        }
        if (messageId.length() > MAX_MESSAGE_ID_LENGTH) {
            throw new UnidentifiableMessageException("the message id is " + messageId.length()
                    + " characters, over the inbox's maximum of " + MAX_MESSAGE_ID_LENGTH + " (consumer '"
                    + consumerName + "')");
        }
    }

    /**
     * Checks a consumer name on its own, e.g. when a broker helper is created, before any message arrives.
     *
     * @return the name
     * @throws InvalidConfigurationException (setting {@code inbox.consumerName}) when it is blank or too long
     */
    public static String requireValidConsumerName(String consumerName) {
        if (consumerName == null || consumerName.isBlank()) {
            throw new InvalidConfigurationException(
                    "inbox.consumerName",
                    "is required: a stable name of the " + "consuming handler, e.g. shipping.order-placed");
        }
        if (consumerName.length() > MAX_CONSUMER_NAME_LENGTH) {
            throw new InvalidConfigurationException(
                    "inbox.consumerName",
                    "is " + consumerName.length() + " characters, over the maximum of " + MAX_CONSUMER_NAME_LENGTH);
        }
        return consumerName;
    }
}
