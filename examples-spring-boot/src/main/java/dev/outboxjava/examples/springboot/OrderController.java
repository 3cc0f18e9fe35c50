package dev.outboxjava.examples.springboot;

import java.util.Map;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /orders {"customer": "ada", "sku": "book", "quantity": 1}} → {@code 201 {"orderId": "..."}}. */
@RestController
public class OrderController {

    /** The request body. */
    public record PlaceOrder(String customer, String sku, int quantity) {}

    private final OrderService orders;

    public OrderController(OrderService orders) {
        this.orders = orders;
    }

    @PostMapping("/orders")
    public ResponseEntity<Map<String, String>> place(@RequestBody PlaceOrder order) {
        UUID orderId = orders.placeOrder(order.customer(), order.sku(), order.quantity());
        return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("orderId", orderId.toString()));
    }

    @ExceptionHandler(IllegalArgumentException.class)
    public ResponseEntity<Map<String, String>> refused(IllegalArgumentException e) {
        return ResponseEntity.badRequest().body(Map.of("error", e.getMessage()));
    }
}
