// The upload form of arena host: sends the chosen archive's bytes as they are (the server checks them as they
// stream in) with the session's CSRF token, then goes to the submission's page. Text from the server is set with
// textContent, never as markup.
"use strict";
(function () {
  const form = document.getElementById("upload");
  if (!form) return;
  const status = document.getElementById("upload-status");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const file = document.getElementById("archive").files[0];
    if (!file) return;
    status.textContent = "uploading " + file.name + " …";
    try {
      const answer = await fetch("/api/submissions", {
        method: "POST",
        body: file,
        credentials: "same-origin",
        headers: { "Content-Type": "application/gzip", "X-CSRF-Token": form.dataset.csrf },
      });
      const data = await answer.json();
      if (!answer.ok) {
        status.textContent = "refused: " + (data.error || answer.status);
        return;
      }
      window.location.assign("/s/" + encodeURIComponent(data.id));
    } catch (error) {
      status.textContent = "the upload failed: " + error;
    }
  });
})();
