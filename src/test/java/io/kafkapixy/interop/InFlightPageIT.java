package io.kafkapixy.interop;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;

import io.kafkapixy.testing.ConsumerSettingsBuilder;
import io.kafkapixy.testing.RunningPixy;
import io.kafkapixy.testing.TestKafka;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import static io.kafkapixy.testing.JsonBodies.object;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The in-flight page in a real headless browser (Debian's chromium, driven through its chromedriver by Selenium)
 * against a proxy on a real broker: a message taken and not acked shows with an age that grows and is marked once
 * past {@code ack_timeout}; a second group appears when it joins; the ack takes the message off the page; with the
 * proxy gone the page says the API is unreachable and shows no numbers. The screenshot the README shows is taken here
 * ({@code target/inflight-page.png}). Skipped when chromium is not installed, unless {@code -Dinterop.required=true}.
 */
class InFlightPageIT {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private final TestKafka kafka = TestKafka.get();
    private final String topic = TestKafka.uniqueTopic("orders");
    private final String group = TestKafka.uniqueTopic("billing");
    private final String second = TestKafka.uniqueTopic("audit");

    @Test
    void theAgeOfAnUnackedMessageGrowsOnThePageUntilItsAckAndASecondGroupAppearsWhenItJoins(@TempDir Path profile)
            throws Exception {
        requireBrowser();
        kafka.createTopic(topic, 2);
        RunningPixy pixy = RunningPixy.start(RunningPixy.config(kafka.bootstrap(), "kp_" + group,
                ConsumerSettingsBuilder.fast().ackTimeout(Duration.ofSeconds(2))
                        .subscriptionTimeout(Duration.ofMinutes(2))));
        WebDriver browser = browser(profile);
        try {
            join(pixy, group);
            kafka.produce(topic, 0, null, "{\"order\": 1}");
            long offset = object(pixy.get(messages(group) + "&noAck").body()).getJsonNumber("offset").longValue();

            browser.get(pixy.uri("/inflight.html").toString());
            By row = By.cssSelector("tr.message[data-group='" + group + "'][data-offset='" + offset + "']");
            double firstAge = waitFor(browser, "the message on the page", () -> age(browser, row));
            waitFor(browser, "its age grown", () -> age(browser, row) > firstAge + 0.5 ? true : null);
            waitFor(browser, "its age marked past ack_timeout", () -> browser.findElement(row)
                    .findElement(By.cssSelector("td.age")).getAttribute("class").contains("late") ? true : null);

            By secondGroup = By.cssSelector("section.group[data-group='" + second + "']");
            assertTrue(browser.findElements(secondGroup).isEmpty());
            join(pixy, second);
            kafka.produce(topic, 1, null, "{\"order\": 2}");
            assertEquals(200, pixy.get(messages(second) + "&noAck").statusCode());
            waitFor(browser, "the second group on the page", () -> browser.findElements(secondGroup).isEmpty()
                    ? null : true);
            waitFor(browser, "the second group's message on the page", () -> browser.findElements(
                    By.cssSelector("tr.message[data-group='" + second + "']")).isEmpty() ? null : true);
            screenshot(browser);

            assertEquals(200, pixy.post("/topics/" + topic + "/acks?group=" + group + "&partition=0&offset=" + offset,
                    "text/plain", "").statusCode());
            waitFor(browser, "the acked message gone from the page", () -> browser.findElements(row).isEmpty()
                    ? true : null);
            assertTrue(browser.findElements(By.cssSelector("section.group[data-group='" + group + "']")).size() == 1,
                    "the group stays while it has a member here");

            pixy.close();
            pixy = null;
            waitFor(browser, "the page saying the API is unreachable", () -> {
                WebElement status = browser.findElement(By.id("status"));
                return status.getAttribute("class").contains("error") && status.getText().contains("unreachable")
                        ? true : null;
            });
            assertTrue(browser.findElements(By.cssSelector("section.group")).isEmpty(),
                    "no stale numbers while the API does not answer");
        } finally {
            browser.quit();
            if (pixy != null) {
                pixy.close();
            }
        }
    }

    private static void requireBrowser() {
        for (Path p : List.of(CHROMIUM, CHROMEDRIVER)) {
            if (!Files.isExecutable(p)) {
                Skips.skip("in-flight page (headless chromium)", p + " is missing",
                        "apt-get install chromium chromium-driver");
            }
        }
    }

    /** Headless chromium without its background traffic to Google (the network is closed here). */
    private static WebDriver browser(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--window-size=1280,860", "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        return new ChromeDriver(service, options);
    }

    private void join(RunningPixy pixy, String g) {
        pixy.get(messages(g));
        TestKafka.Waits.until(WAIT, g + " joined, its start committed", () -> kafka.committed(g, topic).size() == 2);
    }

    private String messages(String g) {
        return "/topics/" + topic + "/messages?group=" + g;
    }

    /** The age the page shows in a message row ("3.4 s"), or null while the row is not there. */
    private static Double age(WebDriver browser, By row) {
        List<WebElement> rows = browser.findElements(row);
        if (rows.isEmpty()) {
            return null;
        }
        String text = rows.get(0).findElement(By.cssSelector("td.age")).getText();
        return Double.parseDouble(text.replace(" s", ""));
    }

    private interface Probe<T> {
        T get();
    }

    /**
     * Waits until {@code probe} gives non-null; elements the page redrew between their look-up and their read are
     * looked up again at the next try.
     */
    private static <T> T waitFor(WebDriver browser, String what, Probe<T> probe) {
        try {
            return org.awaitility.Awaitility.await(what).atMost(WAIT).pollInterval(Duration.ofMillis(100))
                    .ignoreExceptionsMatching(e -> e instanceof org.openqa.selenium.StaleElementReferenceException
                                                   || e instanceof org.openqa.selenium.NoSuchElementException)
                    .until(probe::get, java.util.Objects::nonNull);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("waited " + WAIT + " for " + what + "; the page shows:\n"
                    + browser.findElement(By.tagName("body")).getText());
        }
    }

    private static void screenshot(WebDriver browser) throws Exception {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Path target = Path.of("target", "inflight-page.png");
        Files.createDirectories(target.getParent());
        Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
    }
}
