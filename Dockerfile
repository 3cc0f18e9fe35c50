# The standalone outbox worker: relay, sweeper, cleaner, operator CLI, /health and /metrics.
#
#   docker build -t outbox-worker:0.1.0 .
#   docker run --rm -p 8080:8080 \
#     -e OUTBOX_DB_URL=jdbc:postgresql://db:5432/app -e OUTBOX_DB_USER=app -e OUTBOX_DB_PASSWORD=secret \
#     -e OUTBOX_BROKER=kafka -e OUTBOX_KAFKA_BOOTSTRAP_SERVERS=kafka:9092 \
#     outbox-worker:0.1.0
#
# Any other command of the jar replaces `run`, e.g. `docker run --rm -e OUTBOX_DB_URL=... outbox-worker:0.1.0 status`.
# No container engine runs in this project's CI: the image is not built there. ContainerImageIT and
# DeploymentManifestTest read this file and deploy/kubernetes/outbox-worker.yaml instead.

FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -pl outbox-relay-app -am package -DskipTests \
 && cp outbox-relay-app/target/outbox-relay-app-*-all.jar /src/outbox-worker.jar

FROM eclipse-temurin:17-jre
# curl only serves the HEALTHCHECK below; the JRE image does not ship it.
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 outbox \
 && useradd --system --uid 10001 --gid 10001 --home-dir /opt/outbox --shell /usr/sbin/nologin outbox
WORKDIR /opt/outbox
COPY --from=build /src/outbox-worker.jar /opt/outbox/outbox-worker.jar
# Numeric, so that a kubelet enforcing runAsNonRoot can tell the user is not root without reading
# the image's /etc/passwd (it refuses a named user: "image has non-numeric user").
USER 10001:10001
# The HTTP server must listen on all interfaces inside a container for probes to reach it.
ENV OUTBOX_HTTP_HOST=0.0.0.0 \
    OUTBOX_HTTP_PORT=8080
EXPOSE 8080
# Liveness: every loop of the worker is alive. Readiness (/health/ready) is for load balancers and
# orchestrators that route work, which a relay does not receive.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["curl", "-fsS", "-o", "/dev/null", "http://127.0.0.1:8080/health"]
# SIGTERM reaches java directly (exec form): the worker stops leasing and drains within
# OUTBOX_SHUTDOWN_TIMEOUT (10 s by default); `docker stop` waits 10 s, so give it -t 15 or more.
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/opt/outbox/outbox-worker.jar"]
CMD ["run"]
