import { chromium, type Browser } from "playwright-core"

/**
 * Debian's chromium, headless, never a downloaded browser. Without the
 * background-networking flags Chromium keeps trying hosts this closed
 * network refuses; --no-sandbox because the tests run as root.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-gpu",
      "--no-first-run",
      "--disable-component-update",
      "--disable-sync",
    ],
  })
}
