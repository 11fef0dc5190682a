package ledger.example;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import ledger.client.ApiClient;
import ledger.client.ApiException;
import ledger.client.api.AuditAndReconciliationApi;
import ledger.client.api.BetsApi;
import ledger.client.api.ReadsApi;
import ledger.client.api.TableFactsApi;
import ledger.client.model.BurnCardDto;
import ledger.client.model.CommandResult;
import ledger.client.model.DealCardDto;
import ledger.client.model.DrawCommencementCardDto;
import ledger.client.model.EmptyWriteDto;
import ledger.client.model.FactWriteDto;
import ledger.client.model.OpenRoundDto;
import ledger.client.model.OpenShoeDto;
import ledger.client.model.PlaceBetBatchDto;
import ledger.client.model.RecallResponse;
import ledger.client.model.ReconciliationReport;
import ledger.client.model.ReconciliationRow;

/**
 * Replays a shoe through the Java client generated from docs/openapi.json (one typed call per
 * step), waits until the projections applied the last event, then reads a recall, the
 * reconciliation as JSON and as CSV, and an export, and prints a JSON summary on stdout.
 *
 * <p>Environment: LEDGER_API_URL (e.g. http://127.0.0.1:3000), LEDGER_STEPS (the steps file),
 * LEDGER_TOKEN_TABLE_DEVICE, LEDGER_TOKEN_BETTING_PLATFORM, LEDGER_TOKEN_AUDITOR (bearer tokens,
 * e.g. from `npm run -s token`). Exits non-zero on the first failed call.
 */
public final class Main {
  private final ObjectMapper json = ApiClient.createDefaultObjectMapper();
  private final ApiClient device;
  private final ApiClient platform;
  private final ApiClient auditor;

  private Main(String baseUrl) {
    device = client(baseUrl, env("LEDGER_TOKEN_TABLE_DEVICE"));
    platform = client(baseUrl, env("LEDGER_TOKEN_BETTING_PLATFORM"));
    auditor = client(baseUrl, env("LEDGER_TOKEN_AUDITOR"));
  }

  /** Runs the program: the steps of LEDGER_STEPS, then the reads. */
  public static void main(String[] args) throws Exception {
    String since = Instant.now().minusSeconds(5).toString();
    Main m = new Main(env("LEDGER_API_URL"));
    JsonNode file = m.json.readTree(Files.readString(Path.of(env("LEDGER_STEPS"))));
    String lastEventId = null;
    int calls = 0;
    for (JsonNode step : file.get("steps")) {
      CommandResult r = m.send(step);
      calls++;
      if (!r.getEvents().isEmpty()) lastEventId = r.getEvents().get(r.getEvents().size() - 1).getEventId();
    }
    m.waitApplied(lastEventId);
    ObjectNode out = m.reads(file.get("shoeId").asText(), file.get("recallRoundId").asText(), since);
    out.put("client", "java");
    out.put("calls", calls);
    out.put("lastEventId", lastEventId);
    System.out.println(m.json.writeValueAsString(out));
  }

  private static String env(String name) {
    String v = System.getenv(name);
    if (v == null || v.isEmpty()) throw new IllegalStateException(name + " is not set");
    return v;
  }

  /** A generated client that sends `token` as the bearer of every call. */
  private static ApiClient client(String baseUrl, String token) {
    ApiClient c = new ApiClient();
    c.updateBaseUri(baseUrl);
    c.setRequestInterceptor(b -> b.header("Authorization", "Bearer " + token));
    return c;
  }

  /** One step through its generated operation; the body is read into the operation's generated model. */
  private CommandResult send(JsonNode step) throws ApiException {
    String op = step.get("operationId").asText();
    JsonNode path = step.get("path");
    JsonNode body = step.get("body");
    String key = step.get("idempotencyKey").asText();
    String shoe = path.path("shoeId").asText(null);
    String round = path.path("roundId").asText(null);
    TableFactsApi table = new TableFactsApi(device);
    switch (op) {
      case "openShoe":
        return table.openShoe(path.get("tableId").asText(), json.convertValue(body, OpenShoeDto.class), key);
      case "drawCommencementCard":
        return table.drawCommencementCard(shoe, json.convertValue(body, DrawCommencementCardDto.class), key);
      case "burnCard":
        return table.burnCard(shoe, json.convertValue(body, BurnCardDto.class), key);
      case "drawCutCard":
        return table.drawCutCard(shoe, json.convertValue(body, FactWriteDto.class), key);
      case "openRound":
        return table.openRound(shoe, json.convertValue(body, OpenRoundDto.class), key);
      case "placeBets":
        return new BetsApi(platform).placeBets(shoe, round, json.convertValue(body, PlaceBetBatchDto.class), key);
      case "closeBetting":
        return table.closeBetting(shoe, round, json.convertValue(body, EmptyWriteDto.class), key);
      case "dealCard":
        return table.dealCard(shoe, round, json.convertValue(body, DealCardDto.class), key);
      case "closeShoe":
        return table.closeShoe(shoe, json.convertValue(body, EmptyWriteDto.class), key);
      default:
        throw new IllegalArgumentException("no call for the operation " + op);
    }
  }

  /** Polls getEventApplied until the projections applied `eventId` (at most 60 s). */
  private void waitApplied(String eventId) throws Exception {
    ReadsApi reads = new ReadsApi(auditor);
    long deadline = System.currentTimeMillis() + 60_000;
    while (System.currentTimeMillis() < deadline) {
      if (Boolean.TRUE.equals(reads.getEventApplied(eventId).getApplied())) return;
      Thread.sleep(200);
    }
    throw new IllegalStateException("event " + eventId + " not applied within 60 s");
  }

  /** The recall of `roundId`, the reconciliation of the shoe (JSON and CSV) and the settlements export since `since`. */
  private ObjectNode reads(String shoeId, String roundId, String since) throws Exception {
    AuditAndReconciliationApi audit = new AuditAndReconciliationApi(auditor);
    RecallResponse recall = audit.recallRound(shoeId, roundId, null);
    ReconciliationReport report = audit.getReconciliation("shoe", null, null, shoeId, null, null, null, null, null);
    ReconciliationRow row = report.getItems().get(0);
    String csv = raw("/reports/reconciliation?groupBy=shoe&shoeId=" + enc(shoeId), "text/csv");
    String export = raw("/exports/settlements?from=" + enc(since), "application/x-ndjson");
    ObjectNode out = json.createObjectNode();
    ObjectNode r = out.putObject("recall");
    r.put("roundId", recall.getRound().getRoundId());
    r.put("status", recall.getRound().getStatus().getValue());
    r.put("winner", recall.getRound().getWinner() == null ? null : recall.getRound().getWinner().getValue());
    r.put("bets", recall.getBets().size());
    ObjectNode rec = out.putObject("reconciliation");
    rec.put("turnover", row.getTurnover());
    rec.put("payouts", row.getPayouts());
    rec.put("turnoverCsv", csvColumn(csv, "turnover", "shoeId", shoeId));
    rec.put("payoutsCsv", csvColumn(csv, "payouts", "shoeId", shoeId));
    List<String> lines = Arrays.stream(export.split("\n")).filter(l -> !l.isBlank()).toList();
    // JSON Lines: a header line, one line per row, a trailer {"trailer":{"rows":N}}
    out.putObject("export").put("rows", json.readTree(lines.get(lines.size() - 1)).get("trailer").get("rows").asInt());
    return out;
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  /**
   * A GET whose answer is not JSON (CSV, JSON Lines), through the generated client's own HTTP client,
   * base URI and interceptor: the generated operations read every answer body as JSON, so a
   * `text/csv` or `application/x-ndjson` answer is fetched raw here.
   */
  private String raw(String pathAndQuery, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(auditor.getBaseUri() + pathAndQuery)).header("Accept", accept).GET();
    auditor.getRequestInterceptor().accept(b);
    HttpResponse<String> res = auditor.getHttpClient().send(b.build(), HttpResponse.BodyHandlers.ofString());
    if (res.statusCode() != 200) throw new IllegalStateException("GET " + pathAndQuery + " → " + res.statusCode() + " " + res.body());
    String type = res.headers().firstValue("content-type").orElse("");
    if (!type.startsWith(accept)) throw new IllegalStateException("GET " + pathAndQuery + " answered " + type + ", not " + accept);
    return res.body();
  }

  /** The `column` of the CSV row whose `keyColumn` is `key` (a header line, then plain cells: ids and integers). */
  private static String csvColumn(String csv, String column, String keyColumn, String key) {
    String[] lines = csv.split("\r?\n");
    List<String> header = Arrays.asList(lines[0].split(","));
    for (int i = 1; i < lines.length; i++) {
      String[] cells = lines[i].split(",", -1);
      if (cells[header.indexOf(keyColumn)].equals(key)) return cells[header.indexOf(column)];
    }
    throw new IllegalStateException("no CSV row with " + keyColumn + "=" + key);
  }
}
