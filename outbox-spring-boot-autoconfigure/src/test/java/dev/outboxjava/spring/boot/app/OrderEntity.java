package dev.outboxjava.spring.boot.app;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.util.UUID;

@Entity
@Table(name = "orders")
public class OrderEntity {

    @Id
    private UUID id;

    @Column(nullable = false)
    private String customer;

    @Column(name = "total_cents", nullable = false)
    private long totalCents;

    protected OrderEntity() {}

    public OrderEntity(UUID id, String customer, long totalCents) {
        this.id = id;
        this.customer = customer;
        this.totalCents = totalCents;
    }

    public UUID getId() {
        return id;
    }
}
