package dev.outboxjava.postgres.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import org.jooq.DSLContext;
import org.jooq.Query;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class UuidArraysTest {

    private final DSLContext dsl = DSL.using(SQLDialect.POSTGRES);
    private final UUID id = UUID.fromString("01890a5d-ac96-774b-bcce-b302099a8057");

    @Test
    @DisplayName("ids are one typed uuid[] parameter, not text cast per row")
    void typedParameter() {
        Query query = dsl.deleteFrom(DSL.table("t")).where(OutboxTable.ID.eq(DSL.any(UuidArrays.of(List.of(id)))));
        assertThat(query.getSQL()).contains("= any (?::uuid[])").doesNotContain("cast(");
        assertThat(query.getBindValues()).singleElement().isInstanceOf(UUID[].class);
    }

    @Test
    @DisplayName("inlined (for EXPLAIN) the ids become a uuid[] literal")
    void inlined() {
        Query query = dsl.deleteFrom(DSL.table("t")).where(OutboxTable.ID.eq(DSL.any(UuidArrays.of(List.of(id)))));
        assertThat(dsl.renderInlined(query)).contains("= any ('{" + id + "}'::uuid[])");
    }
}
