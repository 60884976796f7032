// The API key lives in sessionStorage only: it survives a reload, not the browser session.

const STORAGE_KEY = "kenning.apiKey";

export function loadKey() {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? "";
  } catch {
    return ""; // storage disabled: the key lasts as long as the page
  }
}

export function saveKey(key) {
  try {
    if (key) sessionStorage.setItem(STORAGE_KEY, key);
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // storage disabled: keep the key in memory only
  }
}

export function bearer(key) {
  return key ? { Authorization: `Bearer ${key}` } : {};
}
