package dev.outboxjava.relayapp.console;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless chromium, driven through its chromedriver (packages {@code chromium} and
 * {@code chromium-driver}; {@code .ci/run} installs them). Without them the browser tests are skipped on
 * a developer's machine and fail in CI ({@code CI=true}), so a green CI always means they ran.
 */
final class Browser {

    static final Path CHROMIUM = Path.of(System.getProperty("outbox.test.chromium", "/usr/bin/chromium"));
    static final Path CHROMEDRIVER = Path.of(System.getProperty("outbox.test.chromedriver", "/usr/bin/chromedriver"));
    /** Set to true to write the screenshots into docs/console/ (the pages' pictures in the docs). */
    static final String SCREENSHOTS_TO_DOCS = "outbox.docs.screenshots";

    private Browser() {}

    static ChromeDriver start() {
        if (!Files.isExecutable(CHROMIUM) || !Files.isExecutable(CHROMEDRIVER)) {
            String missing = "chromium and chromedriver are needed at " + CHROMIUM + " and " + CHROMEDRIVER
                    + " (apt-get install -y chromium chromium-driver)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                fail(missing + "; CI must run the browser tests");
            }
            Assumptions.abort(missing);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-dev-shm-usage",
                "--disable-gpu",
                "--window-size=1280,1300",
                "--lang=en");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return driver;
    }

    /** A full-page screenshot into docs/console/ (when asked) or target/console-screenshots/. */
    static void screenshot(ChromeDriver driver, String name) {
        Path folder = Boolean.getBoolean(SCREENSHOTS_TO_DOCS)
                ? Path.of("..", "docs", "console")
                : Path.of("target", "console-screenshots");
        try {
            Files.createDirectories(folder);
            Files.write(folder.resolve(name + ".png"), driver.getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
