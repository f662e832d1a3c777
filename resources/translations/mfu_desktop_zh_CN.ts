<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>AdvisorView</name>
    <message>
        <source>Advisor</source>
        <translation>顾问</translation>
    </message>
    <message>
        <source>#</source>
        <translation>#</translation>
    </message>
    <message>
        <source>Finding</source>
        <translation>发现</translation>
    </message>
    <message>
        <source>At stake / step</source>
        <translation>每 step 涉及时间</translation>
    </message>
    <message>
        <source>Share of step</source>
        <translation>占 step</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>rank</translation>
    </message>
    <message>
        <source>Evidence</source>
        <translation>依据</translation>
    </message>
    <message>
        <source>Calls / step</source>
        <translation>调用/step</translation>
    </message>
    <message>
        <source>Time / step</source>
        <translation>耗时/step</translation>
    </message>
    <message>
        <source>Figures</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Open a profile: the advisor lists what to fix first, with the time each fix is worth per step.</source>
        <translation>打开 Profiling 数据：顾问会列出先优化什么，以及每项优化每 step 可节省的时间。</translation>
    </message>
    <message>
        <source>Looking for what to fix first…</source>
        <translation>正在查找先优化什么…</translation>
    </message>
    <message>
        <source>Advising</source>
        <translation>正在生成优化建议</translation>
    </message>
    <message>
        <source>Cluster of {0} ranks: findings as means per rank, largest time at stake first.</source>
        <translation>集群共 {0} 个 rank：发现按每 rank 平均，涉及时间最多的在前。</translation>
    </message>
    <message>
        <source>Largest time at stake first.</source>
        <translation>涉及时间最多的在前。</translation>
    </message>
    <message>
        <source>Rank {0}: largest time at stake first.</source>
        <translation>rank {0}：涉及时间最多的在前。</translation>
    </message>
    <message>
        <source>This rank comes from a cluster summary: only its step and memory figures are advised on.</source>
        <translation>该 rank 来自集群汇总：只分析其 step 与显存数据。</translation>
    </message>
    <message>
        <source>Time at stake is an upper bound per step; findings can overlap.</source>
        <translation>涉及时间是每 step 的上限；不同发现可能重叠。</translation>
    </message>
    <message>
        <source>The advisor could not run: {0}</source>
        <translation>顾问无法运行：{0}</translation>
    </message>
    <message>
        <source>No findings: none of the advisor&apos;s rules found a problem worth the time in what is shown.</source>
        <translation>没有发现：在当前显示的内容中，顾问的规则没有发现值得处理的问题。</translation>
    </message>
    <message>
        <source>Open rank {0}</source>
        <translation>打开 rank {0}</translation>
    </message>
</context>
<context>
    <name>Bands</name>
    <message>
        <source>&lt; 20 %</source>
        <extracomment>Bars and points whose MFU is unknown. Table cells are tinted, not filled: the text stays readable in both themes.</extracomment>
        <translation>&lt; 20 %</translation>
    </message>
    <message>
        <source>20–30 %</source>
        <translation>20–30 %</translation>
    </message>
    <message>
        <source>30–60 %</source>
        <translation>30–60 %</translation>
    </message>
    <message>
        <source>60–70 %</source>
        <translation>60–70 %</translation>
    </message>
    <message>
        <source>≥ 70 %</source>
        <translation>≥ 70 %</translation>
    </message>
    <message>
        <source>&gt; 100 % (impossible)</source>
        <translation>&gt; 100 %（不可能）</translation>
    </message>
    <message>
        <source>no figure</source>
        <translation>无指标</translation>
    </message>
</context>
<context>
    <name>CalculatorTab</name>
    <message>
        <source>GEMM (M×K · K×N)</source>
        <extracomment>Stack page of each kind&apos;s form.</extracomment>
        <translation>GEMM（M×K · K×N）</translation>
    </message>
    <message>
        <source>Batched matmul (B × M×K · K×N)</source>
        <translation>批量矩阵乘（B × M×K · K×N）</translation>
    </message>
    <message>
        <source>Linear layer (B,L,D_in) · (D_in,D_out)</source>
        <translation>线性层 (B,L,D_in) · (D_in,D_out)</translation>
    </message>
    <message>
        <source>Attention QKᵀ</source>
        <translation>注意力 QKᵀ</translation>
    </message>
    <message>
        <source>FlashAttention forward</source>
        <translation>FlashAttention 前向</translation>
    </message>
    <message>
        <source>FlashAttention backward</source>
        <translation>FlashAttention 反向</translation>
    </message>
    <message>
        <source>Whole model (PaLM 6N + 12LHQT)</source>
        <translation>整模型（PaLM 6N + 12LHQT）</translation>
    </message>
    <message>
        <source>Operator</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>Peak and time</source>
        <translation>峰值与耗时</translation>
    </message>
    <message>
        <source>Custom peak (enter below)</source>
        <translation>自定义峰值（在下方输入）</translation>
    </message>
    <message>
        <source>TFLOP/s</source>
        <translation>TFLOP/s</translation>
    </message>
    <message>
        <source>time per call</source>
        <translation>单次调用耗时</translation>
    </message>
    <message>
        <source>number of accelerators</source>
        <translation>加速卡数量</translation>
    </message>
    <message>
        <source>Chip</source>
        <translation>芯片</translation>
    </message>
    <message>
        <source>Dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>Peak (TFLOP/s)</source>
        <translation>理论峰值算力 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Time per call</source>
        <translation>单次耗时</translation>
    </message>
    <message>
        <source>Calls per iteration</source>
        <translation>每次迭代调用次数</translation>
    </message>
    <message>
        <source>Accelerators</source>
        <translation>卡数</translation>
    </message>
    <message>
        <source>FLOPs per call</source>
        <translation>单次调用 FLOPs</translation>
    </message>
    <message>
        <source>Achieved TFLOP/s</source>
        <translation>达成算力 (TFLOP/s)</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>Copy derivation as Markdown</source>
        <translation>复制推导过程（Markdown）</translation>
    </message>
    <message>
        <source>Dimensions</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>FlashAttention</source>
        <translation>FlashAttention</translation>
    </message>
    <message>
        <source>0 — defaultMask (full)</source>
        <translation>0 — defaultMask（全量）</translation>
    </message>
    <message>
        <source>1 — allMask</source>
        <translation>1 — allMask</translation>
    </message>
    <message>
        <source>2 — leftUpCausal</source>
        <translation>2 — leftUpCausal（左上因果）</translation>
    </message>
    <message>
        <source>3 — rightDownCausal</source>
        <translation>3 — rightDownCausal（右下因果）</translation>
    </message>
    <message>
        <source>4 — band (pre/next tokens)</source>
        <translation>4 — band（pre/next tokens）</translation>
    </message>
    <message>
        <source>5–8 — prefix/varlen variants (upper bound)</source>
        <translation>5–8 — prefix/varlen 变体（按全量计，上界）</translation>
    </message>
    <message>
        <source>exact geometry</source>
        <translation>精确几何</translation>
    </message>
    <message>
        <source>seed (continuous S²/2)</source>
        <translation>种子文档口径（连续近似 S²/2）</translation>
    </message>
    <message>
        <source>model FLOPs (2× forward)</source>
        <translation>模型 FLOPs（前向的 2 倍）</translation>
    </message>
    <message>
        <source>executed FLOPs (2.5×, HFU view)</source>
        <translation>实际执行 FLOPs（2.5 倍，HFU 口径）</translation>
    </message>
    <message>
        <source>Query heads</source>
        <translation>Query 头数</translation>
    </message>
    <message>
        <source>pre_tokens</source>
        <translation>pre_tokens</translation>
    </message>
    <message>
        <source>next_tokens</source>
        <translation>next_tokens</translation>
    </message>
    <message>
        <source>input_layout</source>
        <translation>input_layout（布局）</translation>
    </message>
    <message>
        <source>optional</source>
        <translation>可选</translation>
    </message>
    <message>
        <source>Memory-bound operator (bytes, bandwidth)</source>
        <translation>访存受限算子（字节数、带宽）</translation>
    </message>
    <message>
        <source>GB/s</source>
        <translation>GB/s</translation>
    </message>
    <message>
        <source>HBM bandwidth (GB/s)</source>
        <translation>HBM 带宽 (GB/s)</translation>
    </message>
    <message>
        <source>sparse_mode</source>
        <translation>sparse_mode（稀疏模式）</translation>
    </message>
    <message>
        <source>Mask geometry</source>
        <translation>掩码几何口径</translation>
    </message>
    <message>
        <source>Backward counts</source>
        <translation>反向计数口径</translation>
    </message>
    <message>
        <source>Whole model</source>
        <translation>整模型</translation>
    </message>
    <message>
        <source>Parameters N (active)</source>
        <translation>参数量 N（激活参数）</translation>
    </message>
    <message>
        <source>Layers L</source>
        <translation>层数 L</translation>
    </message>
    <message>
        <source>Heads H</source>
        <translation>头数 H</translation>
    </message>
    <message>
        <source>Head dim Q</source>
        <translation>头维度 Q</translation>
    </message>
    <message>
        <source>Sequence T</source>
        <translation>序列长度 T</translation>
    </message>
    <message>
        <source>Tokens/s (whole job)</source>
        <translation>Tokens/s（整个作业）</translation>
    </message>
    <message>
        <source>or: global batch (sequences)</source>
        <translation>或：全局 batch（序列数）</translation>
    </message>
    <message>
        <source>and step time (s)</source>
        <translation>以及 step 耗时 (s)</translation>
    </message>
    <message>
        <source>Recomputed share of 2N (HFU)</source>
        <translation>2N 中重计算的比例 (HFU)</translation>
    </message>
    <message>
        <source>Target MFU (inverse solve)</source>
        <translation>目标 MFU（反向求解）</translation>
    </message>
    <message>
        <source>attention forward recomputed</source>
        <translation>注意力前向被重计算</translation>
    </message>
    <message>
        <source>causal: halve the attention term</source>
        <translation>因果：注意力项减半</translation>
    </message>
    <message>
        <source>Megatron/MaxText convention; PaLM does not halve</source>
        <translation>Megatron/MaxText 口径；PaLM 不减半</translation>
    </message>
    <message>
        <source>describe the architecture instead of N</source>
        <translation>按模型结构计算（代替 N）</translation>
    </message>
    <message>
        <source>GQA projections, SwiGLU, MoE active experts, vocabulary logits</source>
        <translation>GQA 投影、SwiGLU、MoE 激活专家、词表 logits</translation>
    </message>
    <message>
        <source>Modern architecture</source>
        <translation>现代模型结构</translation>
    </message>
    <message>
        <source>KV heads (GQA)</source>
        <translation>KV 头数 (GQA)</translation>
    </message>
    <message>
        <source>FFN hidden</source>
        <translation>FFN 隐层维度</translation>
    </message>
    <message>
        <source>Vocabulary</source>
        <translation>词表大小</translation>
    </message>
    <message>
        <source>MoE experts</source>
        <translation>MoE 专家数</translation>
    </message>
    <message>
        <source>MoE top-k</source>
        <translation>MoE top-k</translation>
    </message>
    <message>
        <source>MoE shared experts</source>
        <translation>MoE 共享专家数</translation>
    </message>
    <message>
        <source>SwiGLU (3 FFN matmuls)</source>
        <translation>SwiGLU（FFN 3 个矩阵乘）</translation>
    </message>
    <message>
        <source>count the vocabulary logits</source>
        <translation>计入词表 logits</translation>
    </message>
    <message>
        <source>Tensors (as the profiler writes them)</source>
        <translation>张量（按 Profiling 数据的写法）</translation>
    </message>
    <message>
        <source>Input shapes</source>
        <translation>输入 shape</translation>
    </message>
    <message>
        <source>Input dtypes</source>
        <translation>输入数据类型</translation>
    </message>
    <message>
        <source>Output shapes</source>
        <translation>输出 shape</translation>
    </message>
    <message>
        <source>Output dtypes</source>
        <translation>输出数据类型</translation>
    </message>
    <message>
        <source>Operator type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <source>Tensors separated by “;”. Minimum bytes: every input read once, every output written once (ZerosLike/Fill read nothing; gathers read what they write).</source>
        <translation>张量之间用“;”分隔。最小字节数：每个输入读一次、每个输出写一次（ZerosLike/Fill 不读取输入；Gather 类只读取其写出的部分）。</translation>
    </message>
    <message>
        <source>Bytes per call</source>
        <translation>每次调用字节数</translation>
    </message>
    <message>
        <source>Achieved GB/s</source>
        <translation>实际 GB/s</translation>
    </message>
    <message>
        <source>Bandwidth utilisation</source>
        <translation>带宽利用率</translation>
    </message>
    <message>
        <source>FLOPs per token</source>
        <translation>每 token FLOPs</translation>
    </message>
    <message>
        <source>MFU (with attention)</source>
        <translation>MFU（含 attention）</translation>
    </message>
    <message>
        <source>Tokens/s needed</source>
        <translation>所需 tokens/s</translation>
    </message>
    <message>
        <source>Step time needed</source>
        <translation>所需 step 耗时</translation>
    </message>
    <message>
        <source>{0} HBM bandwidth (chip catalog)</source>
        <translation>{0} 的 HBM 带宽（芯片目录）</translation>
    </message>
    <message>
        <source>the catalog has no HBM bandwidth for {0}</source>
        <translation>芯片目录中没有 {0} 的 HBM 带宽</translation>
    </message>
    <message>
        <source>entered by you</source>
        <translation>手动输入</translation>
    </message>
    <message>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>give B, L, D_in and D_out</source>
        <translation>请给出 B、L、D_in 和 D_out</translation>
    </message>
    <message>
        <source>give B, H, L_q, L_k and D_h</source>
        <translation>请给出 B、H、L_q、L_k 和 D_h</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>accelerators</source>
        <translation>卡数</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>tokens/s</translation>
    </message>
    <message>
        <source>global batch</source>
        <translation>全局 batch</translation>
    </message>
    <message>
        <source>step time</source>
        <translation>step 耗时</translation>
    </message>
    <message>
        <source>recomputed share</source>
        <translation>重计算比例</translation>
    </message>
    <message>
        <source>target MFU</source>
        <translation>目标 MFU</translation>
    </message>
    <message>
        <source>missing: {0}</source>
        <translation>缺少：{0}</translation>
    </message>
    <message>
        <source>per token</source>
        <translation>每 token</translation>
    </message>
    <message>
        <source>tokens/s at the target MFU</source>
        <translation>目标 MFU 下的 tokens/s</translation>
    </message>
    <message>
        <source>per token (attention {0} TFLOP)</source>
        <translation>每 token（注意力 {0} TFLOP）</translation>
    </message>
    <message>
        <source>MFU without attention</source>
        <translation>不含注意力的 MFU</translation>
    </message>
    <message>
        <source>with attention; HFU {0}</source>
        <translation>含注意力；HFU {0}</translation>
    </message>
    <message>
        <source>MFU {0} is impossible (above 100 %). Tokens/s are for the whole job: at 100 % it would take at least {1} accelerators, not {2} — check the accelerator count, then the tokens/s (or the global batch and step time) and the peak ({3} TFLOP/s per accelerator).</source>
        <translation>MFU {0} 不可能（超过 100 %）。tokens/s 是整个作业的：即使 100 % 也至少需要 {1} 张卡，而不是 {2} 张——请先检查加速卡数量，再检查 tokens/s（或全局 batch 与 step 耗时）以及峰值（每卡 {3} TFLOP/s）。</translation>
    </message>
    <message>
        <source>MFU {0} is impossible (above 100 %): the time is likely too short — is it in {1}, and for one call (calls per iteration: {2})? Then check the shapes (a transpose) and the peak (chip, dtype).</source>
        <translation>MFU {0} 不可能（超过 100 %）：耗时很可能偏短——单位是 {1} 吗？是单次调用的耗时吗（每迭代调用次数：{2}）？再检查 shape（是否转置）和峰值（芯片、数据类型）。</translation>
    </message>
    <message>
        <source>input shapes</source>
        <translation>输入 shape</translation>
    </message>
    <message>
        <source>input dtypes</source>
        <translation>输入数据类型</translation>
    </message>
    <message>
        <source>output shapes</source>
        <translation>输出 shape</translation>
    </message>
    <message>
        <source>output dtypes</source>
        <translation>输出数据类型</translation>
    </message>
    <message>
        <source>operator type</source>
        <translation>算子类型</translation>
    </message>
    <message>
        <source>bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <source>give the input shapes and their dtypes</source>
        <translation>请填写输入 shape 及其数据类型</translation>
    </message>
    <message>
        <source>of HBM bandwidth</source>
        <translation>占 HBM 带宽</translation>
    </message>
    <message>
        <source>Missing inputs: {0}</source>
        <translation>缺少输入：{0}</translation>
    </message>
</context>
<context>
    <name>Catalog</name>
    <message>
        <source>Vendor</source>
        <extracomment>The catalog&apos;s columns in words (the CSV column names stay in the tooltips: the file is edited by name).</extracomment>
        <translation>厂商</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>型号</translation>
    </message>
    <message>
        <source>Architecture</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Matrix FP16 (TFLOP/s)</source>
        <translation>矩阵 FP16 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Matrix BF16 (TFLOP/s)</source>
        <translation>矩阵 BF16 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Matrix FP32 (TFLOP/s)</source>
        <translation>矩阵 FP32 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Matrix HF32/TF32 (TFLOP/s)</source>
        <translation>矩阵 HF32/TF32 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Matrix FP8 (TFLOP/s)</source>
        <translation>矩阵 FP8 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Matrix INT8 (TOPS)</source>
        <translation>矩阵 INT8 (TOPS)</translation>
    </message>
    <message>
        <source>Vector FP16 (TFLOP/s)</source>
        <translation>向量 FP16 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Vector FP32 (TFLOP/s)</source>
        <translation>向量 FP32 (TFLOP/s)</translation>
    </message>
    <message>
        <source>HBM bandwidth (GB/s)</source>
        <translation>HBM 带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Memory (GB)</source>
        <translation>显存 (GB)</translation>
    </message>
    <message>
        <source>Power (W)</source>
        <translation>功耗 (W)</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Interconnect (GB/s)</source>
        <translation>互联带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Interconnect direction</source>
        <translation>互联方向</translation>
    </message>
    <message>
        <source>cpu coefficient</source>
        <translation>cpu 系数</translation>
    </message>
    <message>
        <source>Host CPU</source>
        <translation>Host CPU</translation>
    </message>
    <message>
        <source>AI cores</source>
        <translation>AI Core 数</translation>
    </message>
    <message>
        <source>Cube clock (MHz)</source>
        <translation>Cube 频率 (MHz)</translation>
    </message>
    <message>
        <source>Aliases</source>
        <translation>别名</translation>
    </message>
    <message>
        <source>Alternatives</source>
        <translation>可替代型号</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>置信度</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Die</source>
        <translation>晶粒 (Die)</translation>
    </message>
    <message>
        <source>Achievable FP16 (TFLOP/s)</source>
        <translation>可达 FP16 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Achievable BF16 (TFLOP/s)</source>
        <translation>可达 BF16 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Achievable FP32 (TFLOP/s)</source>
        <translation>可达 FP32 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Achievable FP8 (TFLOP/s)</source>
        <translation>可达 FP8 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Achievable HBM (GB/s)</source>
        <translation>可达 HBM 带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Achievable: source</source>
        <translation>可达值：来源</translation>
    </message>
    <message>
        <source>Achievable: date</source>
        <translation>可达值：日期</translation>
    </message>
</context>
<context>
    <name>CatalogEditor</name>
    <message>
        <source>Chip catalog</source>
        <translation>芯片规格库</translation>
    </message>
    <message>
        <source>Shipped rows are read-only and carry their sources. Your rows (saved in {0}) override a shipped row with the same vendor and model, or add a chip. Blank = not published: it is never treated as 0.</source>
        <translation>内置行只读，并注明数据来源。你的行（保存在 {0}）会覆盖厂商和型号相同的内置行，或新增一款芯片。空白表示未公开，绝不会当作 0。</translation>
    </message>
    <message>
        <source>Shipped ({0})</source>
        <translation>内置（{0}）</translation>
    </message>
    <message>
        <source>New chip</source>
        <translation>新增芯片</translation>
    </message>
    <message>
        <source>Copy selected shipped chip</source>
        <translation>复制选中的内置芯片</translation>
    </message>
    <message>
        <source>Remove row</source>
        <translation>删除行</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开目录</translation>
    </message>
    <message>
        <source>Yours</source>
        <translation>我的</translation>
    </message>
    <message>
        <source>{0} problem(s); first: {1}</source>
        <translation>{0} 个问题；第一个：{1}</translation>
    </message>
    <message>
        <source>Select a shipped chip first (Shipped tab).</source>
        <translation>请先在“内置”页选中一款芯片。</translation>
    </message>
    <message>
        <source>Not saved: {0}</source>
        <translation>未保存：{0}</translation>
    </message>
</context>
<context>
    <name>CatalogRowsModel</name>
    <message>
        <source>Column {0} of the catalog CSV</source>
        <translation>芯片规格库 CSV 中的 {0} 列</translation>
    </message>
</context>
<context>
    <name>Columns</name>
    <message>
        <source>Chip</source>
        <translation>芯片</translation>
    </message>
    <message>
        <source>Arch</source>
        <translation>架构</translation>
    </message>
    <message>
        <source>Compute ×</source>
        <translation>计算 ×</translation>
    </message>
    <message>
        <source>Expected error</source>
        <translation>预期误差</translation>
    </message>
    <message>
        <source>10 %–90 % band and median of the per-kernel error the accuracy report measured on held-out public pairs of this class (same or cross vendor), for this model and basis, weighted by this profile&apos;s kernel mix (docs/accuracy.md); empty: nothing measured applies</source>
        <translation>准确度报告在留出的公开数据对（同厂商或跨厂商）上实测的单个 kernel 误差的 10 %–90 % 区间与中位数，按本模型与换算基准、以本 profile 的 kernel 构成加权（docs/accuracy.md）；为空：没有适用的实测数据</translation>
    </message>
    <message>
        <source>Step ×</source>
        <translation>Step ×</translation>
    </message>
    <message>
        <source>whole step, composed by time (prediction.md §4.3)</source>
        <translation>整个 step，按时间合成（prediction.md §4.3）</translation>
    </message>
    <message>
        <source>README formula ×</source>
        <translation>README 公式 ×</translation>
    </message>
    <message>
        <source>the seed README&apos;s arithmetic-mean formula, for comparison</source>
        <translation>种子 README 的算术平均公式，供对比</translation>
    </message>
    <message>
        <source>Transfer (µs)</source>
        <translation>真实通信 (µs)</translation>
    </message>
    <message>
        <source>Wait (µs)</source>
        <translation>等待 (µs)</translation>
    </message>
    <message>
        <source>Fallback share</source>
        <translation>回退占比</translation>
    </message>
    <message>
        <source>cpu coefficient from the catalog; assumed {0} for: {1}</source>
        <translation>cpu 系数取自芯片规格库；以下芯片假设为 {0}：{1}</translation>
    </message>
    <message>
        <source>Roofline model</source>
        <translation>Roofline 模型</translation>
    </message>
    <message>
        <source>Seed model</source>
        <translation>种子模型</translation>
    </message>
    <message>
        <source>fitted</source>
        <translation>拟合</translation>
    </message>
    <message>
        <source>achievable</source>
        <translation>实测可达</translation>
    </message>
    <message>
        <source>advertised</source>
        <translation>标称</translation>
    </message>
    <message>
        <source>{0} (default)</source>
        <translation>{0}（默认）</translation>
    </message>
    <message>
        <source>{0} (original script)</source>
        <translation>{0}（原始脚本）</translation>
    </message>
    <message>
        <source>{0} … {1} (median {2})</source>
        <translation>{0} … {1}（中位数 {2}）</translation>
    </message>
    <message>
        <source>{0} (measured)</source>
        <translation>{0}（实测）</translation>
    </message>
    <message>
        <source>✓ fits, {0} GB free</source>
        <translation>✓ 放得下，剩余 {0} GB</translation>
    </message>
    <message>
        <source>✗ does not fit: {0} GB short</source>
        <translation>✗ 放不下：缺 {0} GB</translation>
    </message>
    <message>
        <source>{0} (measured): {1}</source>
        <translation>{0}（实测）：{1}</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>cpu coefficient from the catalog; chips without one (step not predicted): {0}</source>
        <translation>cpu 系数取自芯片规格库；缺少该系数的芯片（不预估 step）：{0}</translation>
    </message>
    <message>
        <source>cpu coefficient from the catalog for every chip</source>
        <translation>所有芯片的 cpu 系数均取自芯片规格库</translation>
    </message>
    <message>
        <source>compute-class kernels; (share) when only part of their time is predictable</source>
        <translation>计算类算子；括号内为可预估耗时的占比（仅部分可预估时）</translation>
    </message>
    <message>
        <source>Basis</source>
        <translation>换算基准</translation>
    </message>
    <message>
        <source>advertised peaks or measured achievable values, with the share of time predicted on each</source>
        <translation>标称峰值或实测可达值，以及按各基准预估的时间占比</translation>
    </message>
    <message>
        <source>Compute (µs/step)</source>
        <translation>计算 (µs/step)</translation>
    </message>
    <message>
        <source>predicted time of the predictable compute-class kernels</source>
        <translation>可预估的计算类算子的预估耗时</translation>
    </message>
    <message>
        <source>Step (µs)</source>
        <translation>step (µs)</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>the footprint measured on the source (process reserved, else the allocator&apos;s reserved) against the chip&apos;s memory; the same allocator is assumed</source>
        <translation>源芯片上测得的内存占用（进程预留，否则为分配器预留）与该芯片内存容量之比；假设使用相同的分配器</translation>
    </message>
    <message>
        <source>Slowest rank</source>
        <translation>最慢 rank</translation>
    </message>
    <message>
        <source>Slowest rank step (µs)</source>
        <translation>最慢 rank 的 step (µs)</translation>
    </message>
    <message>
        <source>Predicted share</source>
        <translation>可预估占比</translation>
    </message>
    <message>
        <source>Step not predicted because</source>
        <translation>未预估 step 的原因</translation>
    </message>
    <message>
        <source>Rules</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>HBM GB/s</source>
        <translation>HBM GB/s</translation>
    </message>
    <message>
        <source>Rank</source>
        <translation>Rank</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Δ time (µs/step)</source>
        <translation>Δ 耗时（µs/step）</translation>
    </message>
    <message>
        <source>NEW − BASE</source>
        <translation>NEW − BASE</translation>
    </message>
    <message>
        <source>Match</source>
        <translation>匹配方式</translation>
    </message>
    <message>
        <source>Family</source>
        <translation>算子族</translation>
    </message>
    <message>
        <source>Type</source>
        <extracomment>Columns never shown (internal to the engine). The kernel table&apos;s column presets (the column chooser), each a list of column keys. The By type / By type and shape tables&apos; column presets.</extracomment>
        <translation>算子类型</translation>
    </message>
    <message>
        <source>BASE calls/step</source>
        <translation>BASE 调用次数/step</translation>
    </message>
    <message>
        <source>op calls: an aten::mm is one call whatever the kernels it launched</source>
        <translation>算子调用次数：一次 aten::mm 无论下发几个 kernel 都算一次调用</translation>
    </message>
    <message>
        <source>BASE kernels/step</source>
        <translation>BASE 每 step kernel 数</translation>
    </message>
    <message>
        <source>BASE time (µs/step)</source>
        <translation>BASE 耗时（µs/step）</translation>
    </message>
    <message>
        <source>BASE MFU</source>
        <translation>BASE MFU</translation>
    </message>
    <message>
        <source>NEW calls/step</source>
        <translation>NEW 调用次数/step</translation>
    </message>
    <message>
        <source>NEW kernels/step</source>
        <translation>NEW 每 step kernel 数</translation>
    </message>
    <message>
        <source>NEW time (µs/step)</source>
        <translation>NEW 耗时（µs/step）</translation>
    </message>
    <message>
        <source>NEW MFU</source>
        <translation>NEW MFU</translation>
    </message>
    <message>
        <source>NEW ÷ BASE</source>
        <translation>NEW ÷ BASE</translation>
    </message>
    <message>
        <source>Predicted for NEW&apos;s chip (µs/step)</source>
        <translation>NEW 芯片上的预估（µs/step）</translation>
    </message>
    <message>
        <source>what mfu predict says BASE&apos;s kernels take on NEW&apos;s chip (chip vs chip)</source>
        <translation>mfu predict 预估 BASE 的算子在 NEW 芯片上的耗时（芯片对比）</translation>
    </message>
    <message>
        <source>Prediction error</source>
        <translation>预估误差</translation>
    </message>
    <message>
        <source>predicted ÷ measured NEW time − 1</source>
        <translation>预估 ÷ 实测 NEW 耗时 − 1</translation>
    </message>
    <message>
        <source>Why it changed</source>
        <translation>变化原因</translation>
    </message>
    <message>
        <source>Core</source>
        <translation>核类型</translation>
    </message>
    <message>
        <source>Class</source>
        <translation>类别</translation>
    </message>
    <message>
        <source>Precision</source>
        <translation>精度</translation>
    </message>
    <message>
        <source>Peak unit</source>
        <translation>峰值单元</translation>
    </message>
    <message>
        <source>Duration (µs)</source>
        <translation>耗时 (µs)</translation>
    </message>
    <message>
        <source>Compute (µs)</source>
        <translation>计算时间 (µs)</translation>
    </message>
    <message>
        <source>Memory (µs)</source>
        <translation>访存时间 (µs)</translation>
    </message>
    <message>
        <source>Compute ratio</source>
        <translation>算力比</translation>
    </message>
    <message>
        <source>Memory ratio</source>
        <translation>带宽比</translation>
    </message>
    <message>
        <source>Scale</source>
        <translation>缩放系数</translation>
    </message>
    <message>
        <source>Predicted (µs)</source>
        <translation>预估耗时 (µs)</translation>
    </message>
    <message>
        <source>Fallback</source>
        <translation>回退</translation>
    </message>
    <message>
        <source>Reason</source>
        <translation>原因</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Step</translation>
    </message>
    <message>
        <source>FLOPs</source>
        <translation>FLOPs</translation>
    </message>
    <message>
        <source>Achieved TFLOP/s</source>
        <translation>达成算力 (TFLOP/s)</translation>
    </message>
    <message>
        <source>Peak TFLOP/s</source>
        <translation>峰值 TFLOP/s</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>MFU low</source>
        <translation>MFU 下限</translation>
    </message>
    <message>
        <source>MFU high</source>
        <translation>MFU 上限</translation>
    </message>
    <message>
        <source>Bound</source>
        <translation>瓶颈</translation>
    </message>
    <message>
        <source>compute when FLOPs / peak &gt; bytes / bandwidth, else memory (the roofline)</source>
        <translation>FLOPs / 峰值 &gt; 字节数 / 带宽 时为计算受限，否则为访存受限（Roofline 模型）</translation>
    </message>
    <message>
        <source>Bytes</source>
        <translation>字节数</translation>
    </message>
    <message>
        <source>minimum bytes: every input read once, every output written once</source>
        <translation>最小字节数：每个输入读一次、每个输出写一次</translation>
    </message>
    <message>
        <source>Achieved GB/s</source>
        <translation>实际 GB/s</translation>
    </message>
    <message>
        <source>BW util</source>
        <translation>带宽利用率</translation>
    </message>
    <message>
        <source>FLOP/byte</source>
        <translation>FLOP/字节</translation>
    </message>
    <message>
        <source>arithmetic intensity = FLOPs / bytes</source>
        <translation>算术强度 = FLOPs / 字节数</translation>
    </message>
    <message>
        <source>Roofline t* (µs)</source>
        <translation>Roofline t* (µs)</translation>
    </message>
    <message>
        <source>max(FLOPs / peak, bytes / bandwidth): the fastest the roofline allows</source>
        <translation>max(FLOPs / 峰值, 字节数 / 带宽)：Roofline 允许的最短时间</translation>
    </message>
    <message>
        <source>Lost (µs)</source>
        <translation>损失时间 (µs)</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Dtype</source>
        <translation>数据类型</translation>
    </message>
    <message>
        <source>Input shapes</source>
        <translation>输入 shape</translation>
    </message>
    <message>
        <source>measured − roofline-attainable (t − t*); duration × (1 − MFU) for a counted kernel without bytes</source>
        <translation>实测 − Roofline 可达时间 (t − t*)；无字节数的已计入 kernel 为 耗时 × (1 − MFU)</translation>
    </message>
    <message>
        <source>the kernel&apos;s short display name; the full name is the cell&apos;s tooltip and in the detail pane</source>
        <translation>kernel 的简短显示名；完整名称见单元格提示和详情面板</translation>
    </message>
    <message>
        <source>the figure of a compute-bound kernel: achieved TFLOP/s / peak (coloured where it judges the kernel)</source>
        <translation>计算受限算子的指标：达成算力 / 峰值（仅在由它评判该算子时着色）</translation>
    </message>
    <message>
        <source>achieved GB/s / the chip&apos;s HBM bandwidth: the figure of a memory-bound kernel (coloured where it judges the kernel)</source>
        <translation>达成带宽 GB/s / 芯片 HBM 带宽：访存受限算子的指标（仅在由它评判该算子时着色）</translation>
    </message>
    <message>
        <source>Output shapes</source>
        <translation>输出 shape</translation>
    </message>
    <message>
        <source>Input dtypes</source>
        <translation>输入数据类型</translation>
    </message>
    <message>
        <source>Output dtypes</source>
        <translation>输出数据类型</translation>
    </message>
    <message>
        <source>Block dim</source>
        <translation>Block Dim</translation>
    </message>
    <message>
        <source>Mix block dim</source>
        <translation>Mix Block Dim</translation>
    </message>
    <message>
        <source>Cube util (%)</source>
        <translation>cube 利用率 (%)</translation>
    </message>
    <message>
        <source>hardware counter: how busy the cube pipeline was (not MFU)</source>
        <translation>硬件计数器：cube 流水线的繁忙程度（不是 MFU）</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>可信度</translation>
    </message>
    <message>
        <source>FLOPs source</source>
        <translation>FLOPs 来源</translation>
    </message>
    <message>
        <source>shapes: the FLOP rules on the kernel&apos;s shapes; + flash_attn_args: with the arguments an MSTX mark recorded; mfu_flops range: FLOPs torch_npu recorded for the call</source>
        <translation>shapes：按算子 shape 套用 FLOPs 公式；+ flash_attn_args：结合 MSTX 打点记录的参数；mfu_flops range：torch_npu 为该调用记录的 FLOPs</translation>
    </message>
    <message>
        <source>Assumption</source>
        <translation>假设</translation>
    </message>
    <message>
        <source>HW/model FLOPs</source>
        <translation>硬件/模型 FLOPs</translation>
    </message>
    <message>
        <source>aic_cube_fops / model FLOPs</source>
        <translation>aic_cube_fops / 模型 FLOPs</translation>
    </message>
    <message>
        <source>Executed FLOPs</source>
        <translation>实际执行 FLOPs</translation>
    </message>
    <message>
        <source>HW bytes</source>
        <translation>硬件字节数</translation>
    </message>
    <message>
        <source>main-memory bytes the hardware counted (aic_metrics Memory / MemoryAccess)</source>
        <translation>硬件计数的主存字节数（aic_metrics Memory / MemoryAccess）</translation>
    </message>
    <message>
        <source>HF32 eligible</source>
        <translation>HF32 可用</translation>
    </message>
    <message>
        <source>the profiler&apos;s HF32 eligible column: an FP32 matmul that may run as HF32</source>
        <translation>Profiling 数据的 HF32 eligible 列：可按 HF32 执行的 FP32 矩阵乘</translation>
    </message>
    <message>
        <source>Start (ns)</source>
        <translation>开始时间 (ns)</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>设备</translation>
    </message>
    <message>
        <source>Stream</source>
        <translation>Stream</translation>
    </message>
    <message>
        <source>Op call</source>
        <translation>op 调用</translation>
    </message>
    <message>
        <source>the op call that launched the kernel (a GPU op may launch several)</source>
        <translation>下发该 kernel 的 op 调用（一个 GPU op 可能下发多个 kernel）</translation>
    </message>
    <message>
        <source>Attributes</source>
        <translation>属性</translation>
    </message>
    <message>
        <source>Share of the op&apos;s FLOPs</source>
        <translation>占所属 op FLOPs 的比例</translation>
    </message>
    <message>
        <source>the part of its launching op&apos;s FLOPs this kernel carries (by duration)</source>
        <translation>该 kernel 承担的下发它的 op 的 FLOPs 比例（按耗时分摊）</translation>
    </message>
    <message>
        <source>Recorded FLOPs</source>
        <translation>记录的 FLOPs</translation>
    </message>
    <message>
        <source>Marks</source>
        <translation>打点</translation>
    </message>
    <message>
        <source>hardware counter</source>
        <translation>硬件计数器</translation>
    </message>
    <message>
        <source>AI Core time (µs)</source>
        <translation>AI Core 耗时 (µs)</translation>
    </message>
    <message>
        <source>Cube cycles</source>
        <translation>Cube 周期数</translation>
    </message>
    <message>
        <source>Cube MAC time (µs)</source>
        <translation>Cube MAC 耗时 (µs)</translation>
    </message>
    <message>
        <source>Cube MTE1 time (µs)</source>
        <translation>Cube MTE1 耗时 (µs)</translation>
    </message>
    <message>
        <source>Cube MTE2 time (µs)</source>
        <translation>Cube MTE2 耗时 (µs)</translation>
    </message>
    <message>
        <source>Cube FLOPs (counted)</source>
        <translation>Cube FLOPs（硬件计数）</translation>
    </message>
    <message>
        <source>Vector core time (µs)</source>
        <translation>Vector 核耗时 (µs)</translation>
    </message>
    <message>
        <source>Vector cycles</source>
        <translation>Vector 周期数</translation>
    </message>
    <message>
        <source>Vector VEC time (µs)</source>
        <translation>Vector VEC 耗时 (µs)</translation>
    </message>
    <message>
        <source>Vector MTE2 time (µs)</source>
        <translation>Vector MTE2 耗时 (µs)</translation>
    </message>
    <message>
        <source>Vector MTE3 time (µs)</source>
        <translation>Vector MTE3 耗时 (µs)</translation>
    </message>
    <message>
        <source>Cube main-memory read (GB/s)</source>
        <translation>Cube 主存读带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Cube main-memory write (GB/s)</source>
        <translation>Cube 主存写带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Vector main-memory read (GB/s)</source>
        <translation>Vector 主存读带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Vector main-memory write (GB/s)</source>
        <translation>Vector 主存写带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Cube main-memory read (KB)</source>
        <translation>Cube 主存读数据量 (KB)</translation>
    </message>
    <message>
        <source>Cube main-memory write (KB)</source>
        <translation>Cube 主存写数据量 (KB)</translation>
    </message>
    <message>
        <source>Vector main-memory read (KB)</source>
        <translation>Vector 主存读数据量 (KB)</translation>
    </message>
    <message>
        <source>Vector main-memory write (KB)</source>
        <translation>Vector 主存写数据量 (KB)</translation>
    </message>
    <message>
        <source>Kernels/step</source>
        <translation>每 step kernel 数</translation>
    </message>
    <message>
        <source>Calls/step</source>
        <translation>每 step 调用次数</translation>
    </message>
    <message>
        <source>Time (µs/step)</source>
        <translation>耗时 (µs/step)</translation>
    </message>
    <message>
        <source>Share</source>
        <translation>占比</translation>
    </message>
    <message>
        <source>Counted/step</source>
        <translation>每 step 计入数</translation>
    </message>
    <message>
        <source>Counted time (µs/step)</source>
        <translation>计入耗时 (µs/step)</translation>
    </message>
    <message>
        <source>FLOPs/step</source>
        <translation>每 step FLOPs</translation>
    </message>
    <message>
        <source>FLOPs per kernel</source>
        <translation>单个 kernel FLOPs</translation>
    </message>
    <message>
        <source>Mean per kernel (µs)</source>
        <translation>单个 kernel 平均耗时 (µs)</translation>
    </message>
    <message>
        <source>Preparing (µs)</source>
        <translation>准备 (µs)</translation>
    </message>
    <message>
        <source>Comm not overlapped, excl. receive (µs)</source>
        <translation>未掩盖通信，不含接收 (µs)</translation>
    </message>
    <message>
        <source>Lost (µs/step)</source>
        <translation>损失时间 (µs/step)</translation>
    </message>
    <message>
        <source>Bytes/step</source>
        <translation>字节数/step</translation>
    </message>
    <message>
        <source>Roofline t* (µs/step)</source>
        <translation>Roofline t* (µs/step)</translation>
    </message>
    <message>
        <source>Roofline util</source>
        <translation>Roofline 利用率</translation>
    </message>
    <message>
        <source>HW bytes/step</source>
        <translation>硬件字节数/step</translation>
    </message>
    <message>
        <source>HW / minimum bytes</source>
        <translation>硬件 / 最小字节数</translation>
    </message>
    <message>
        <source>the rank&apos;s id, or its file; a rank id several folders share is followed by the part of the path that tells them apart</source>
        <translation>rank 编号，或其文件名；多个目录共用同一 rank 编号时，后接能区分它们的路径部分</translation>
    </message>
    <message>
        <source>Rank id</source>
        <translation>rank 编号</translation>
    </message>
    <message>
        <source>fallback tier: T1 FLOPs-based MFU, T2 cube utilisation, T3 device busy</source>
        <translation>兜底档位：T1 基于 FLOPs 的 MFU，T2 cube 利用率，T3 设备忙碌度</translation>
    </message>
    <message>
        <source>mean over the rank&apos;s captured steps</source>
        <translation>该 rank 采集到的各 step 的平均值</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>step 数</translation>
    </message>
    <message>
        <source>Peak allocated (MB)</source>
        <translation>峰值已分配 (MB)</translation>
    </message>
    <message>
        <source>the framework allocator&apos;s peak (profile_memory=True)</source>
        <translation>框架内存分配器的峰值（profile_memory=True）</translation>
    </message>
    <message>
        <source>Peak reserved (MB)</source>
        <translation>峰值预留 (MB)</translation>
    </message>
    <message>
        <source>Process reserved (MB)</source>
        <translation>进程预留 (MB)</translation>
    </message>
    <message>
        <source>the whole process&apos;s reserved peak (APP): allocator, runtime, HCCL buffers</source>
        <translation>整个进程的预留峰值（APP）：分配器、运行时、HCCL 缓冲区</translation>
    </message>
    <message>
        <source>Memory used</source>
        <translation>内存占用率</translation>
    </message>
    <message>
        <source>the footprint against the chip&apos;s memory (memory_gb)</source>
        <translation>内存占用与芯片内存容量（memory_gb）之比</translation>
    </message>
    <message>
        <source>Kernels (total)</source>
        <translation>算子数（合计）</translation>
    </message>
    <message>
        <source>Counted</source>
        <translation>计入数</translation>
    </message>
    <message>
        <source>Computing (µs)</source>
        <translation>计算 (µs)</translation>
    </message>
    <message>
        <source>Comm not overlapped (µs)</source>
        <translation>未掩盖通信 (µs)</translation>
    </message>
    <message>
        <source>Overlapped (µs)</source>
        <translation>被掩盖通信 (µs)</translation>
    </message>
    <message>
        <source>Communication (µs)</source>
        <translation>通信 (µs)</translation>
    </message>
    <message>
        <source>Free (µs)</source>
        <translation>空闲时间 (µs)</translation>
    </message>
    <message>
        <source>Stage (µs)</source>
        <translation>Stage (µs)</translation>
    </message>
    <message>
        <source>Bubble (µs)</source>
        <translation>空泡 (µs)</translation>
    </message>
    <message>
        <source>Step time (µs)</source>
        <translation>Step 耗时 (µs)</translation>
    </message>
    <message>
        <source>Step MFU</source>
        <translation>端到端 step MFU</translation>
    </message>
    <message>
        <source>Step MFU low</source>
        <translation>step MFU 下限</translation>
    </message>
    <message>
        <source>Step MFU high</source>
        <translation>step MFU 上限</translation>
    </message>
    <message>
        <source>Operator MFU</source>
        <translation>算子达成率</translation>
    </message>
    <message>
        <source>Cube util</source>
        <translation>cube 利用率</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>档位</translation>
    </message>
    <message>
        <source>Slow</source>
        <translation>慢</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>where the rank comes from: folder or file under the opened root, format (text / db / msprof / trace), capture level</source>
        <translation>rank 的来源：打开目录下的目录或文件、格式（text / db / msprof / trace）、采集级别</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>目录</translation>
    </message>
</context>
<context>
    <name>CompareTab</name>
    <message>
        <source>BASE: open a profile in the Profiler tab</source>
        <translation>BASE：请在 Profiling 分析页打开性能数据</translation>
    </message>
    <message>
        <source>NEW: not chosen</source>
        <translation>NEW：未选择</translation>
    </message>
    <message>
        <source>Choose NEW…</source>
        <translation>选择 NEW…</translation>
    </message>
    <message>
        <source>The chip NEW ran on: detected from the profile, or chosen here when the profile does not say (BASE&apos;s chip: the Profiler tab&apos;s Assumptions)</source>
        <translation>NEW 运行的芯片：从性能数据识别，数据未注明时在此选择（BASE 的芯片：在 Profiling 分析页的“假设”中设置）</translation>
    </message>
    <message>
        <source>Export…</source>
        <translation>导出…</translation>
    </message>
    <message>
        <source>Save calibration</source>
        <translation>保存校准</translation>
    </message>
    <message>
        <source>Chip vs chip: fit measured ÷ predicted per category (matmul, attention, element-wise) on both bases and keep the factors for this chip pair; later predictions use and name them</source>
        <translation>芯片对比：按类别（矩阵乘、注意力、逐元素）在两种换算基准下拟合 实测 ÷ 预估，并为这对芯片保存系数；之后的预估会使用并注明这些系数</translation>
    </message>
    <message>
        <source>NEW&apos;s chip:</source>
        <translation>NEW 芯片：</translation>
    </message>
    <message>
        <source>Operator MFU (算子达成率)</source>
        <translation>算子达成率 (MFU)</translation>
    </message>
    <message>
        <source>End-to-end step MFU</source>
        <translation>端到端 step MFU</translation>
    </message>
    <message>
        <source>Communication not overlapped</source>
        <translation>未掩盖通信</translation>
    </message>
    <message>
        <source>Chip vs chip</source>
        <translation>芯片对比</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>Operator groups</source>
        <translation>算子分组</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>Step</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>detected</source>
        <translation>自动识别</translation>
    </message>
    <message>
        <source>NEW: {0}</source>
        <translation>NEW：{0}</translation>
    </message>
    <message>
        <source>Open the BASE profile in the Profiler tab first.</source>
        <translation>请先在 Profiling 分析页打开 BASE 性能数据。</translation>
    </message>
    <message>
        <source>NEW&apos;s chip</source>
        <translation>NEW 芯片</translation>
    </message>
    <message>
        <source>Comparing with {0}…</source>
        <translation>正在与 {0} 对比…</translation>
    </message>
    <message>
        <source>Comparing profiles</source>
        <translation>正在对比性能数据</translation>
    </message>
    <message>
        <source>The comparison failed: {0}</source>
        <translation>对比失败：{0}</translation>
    </message>
    <message>
        <source>Export the comparison to</source>
        <translation>将对比结果导出到</translation>
    </message>
    <message>
        <source>Export failed: {0}</source>
        <translation>导出失败：{0}</translation>
    </message>
    <message>
        <source>Exported {0} files to {1}</source>
        <translation>已导出 {0} 个文件到 {1}</translation>
    </message>
    <message>
        <source>Compared {0} with {1}</source>
        <translation>已对比 {0} 与 {1}</translation>
    </message>
    <message>
        <source>Saved calibration {0} → {1} ({2}) to {3}</source>
        <translation>已保存校准 {0} → {1}（{2}）到 {3}</translation>
    </message>
    <message>
        <source>no matched category</source>
        <translation>没有匹配的类别</translation>
    </message>
    <message>
        <source>Calibration failed: {0}</source>
        <translation>校准失败：{0}</translation>
    </message>
    <message>
        <source>Saving calibration</source>
        <translation>正在保存校准</translation>
    </message>
    <message>
        <source>NEW&apos;s chip is not confirmed: choose it in NEW&apos;s chip</source>
        <translation>NEW 的芯片未确认：请在“NEW 芯片”中选择</translation>
    </message>
    <message>
        <source>BASE&apos;s chip is not confirmed: set it in the Profiler tab&apos;s Assumptions</source>
        <translation>BASE 的芯片未确认：请在 Profiling 分析页的“假设”中设置</translation>
    </message>
    <message>
        <source>no step trace on one side</source>
        <translation>有一方没有 step trace</translation>
    </message>
    <message>
        <source>BASE → NEW</source>
        <translation>BASE → NEW</translation>
    </message>
    <message>
        <source>Compare</source>
        <extracomment>The user wants to choose NEW: ``True`` for trace or db files, ``False`` for a folder (the window asks). Where a file dialog starts (the window gives its last folder).</extracomment>
        <translation>性能对比</translation>
    </message>
    <message>
        <source>A folder…</source>
        <translation>目录…</translation>
    </message>
    <message>
        <source>Trace or db files…</source>
        <translation>Trace 或 db 文件…</translation>
    </message>
    <message>
        <source>Step time (mean per rank)</source>
        <translation>step 耗时（各 rank 平均）</translation>
    </message>
    <message>
        <source>Choose a folder…</source>
        <translation>选择目录…</translation>
    </message>
    <message>
        <source>Choose trace or db files…</source>
        <translation>选择 trace 或 db 文件…</translation>
    </message>
    <message>
        <source>Choose the NEW profile to compare {0} (BASE) with: a profiler folder, a cluster summary, or PyTorch profiler traces and profiler databases. Before/after a change, or one chip against another.</source>
        <translation>选择要与 {0}（BASE）对比的 NEW：Profiling 数据目录、集群汇总，或 PyTorch profiler trace 与 Profiling 数据库。可以是改动前后，也可以是芯片之间。</translation>
    </message>
    <message>
        <source>Open the BASE profile in the Profiler tab first (File → Open folder, or drop it on the window); then choose the NEW profile here.</source>
        <translation>请先在 Profiling 分析页打开 BASE（文件 → 打开目录，或拖到窗口上），再在这里选择 NEW。</translation>
    </message>
    <message>
        <source>BASE: {0} ({1})</source>
        <translation>BASE：{0}（{1}）</translation>
    </message>
    <message>
        <source>NEW is {0}× faster</source>
        <translation>NEW 快 {0}×</translation>
    </message>
    <message>
        <source>NEW is {0}× slower</source>
        <translation>NEW 慢 {0}×</translation>
    </message>
    <message>
        <source>unchanged</source>
        <translation>不变</translation>
    </message>
    <message>
        <source>{0} ({1} µs per step)</source>
        <translation>{0}（每 step {1} µs）</translation>
    </message>
    <message>
        <source>mean per rank</source>
        <translation>各 rank 平均</translation>
    </message>
    <message>
        <source>of which waiting {0:+,.1f} µs</source>
        <translation>其中等待 {0:+,.1f} µs</translation>
    </message>
    <message>
        <source>step predicted {0} µs, measured {1} µs</source>
        <translation>step 预估 {0} µs，实测 {1} µs</translation>
    </message>
    <message>
        <source>chip not confirmed</source>
        <translation>芯片未确认</translation>
    </message>
    <message>
        <source>same chip</source>
        <translation>同一芯片</translation>
    </message>
    <message>
        <source>Per step, mean per rank</source>
        <translation>每 step，各 rank 平均</translation>
    </message>
    <message>
        <source>BASE (µs, or %)</source>
        <translation>BASE（µs 或 %）</translation>
    </message>
    <message>
        <source>NEW (µs, or %)</source>
        <translation>NEW（µs 或 %）</translation>
    </message>
    <message>
        <source>Δ NEW − BASE (µs)</source>
        <translation>Δ NEW − BASE（µs）</translation>
    </message>
    <message>
        <source>peak allocated (MB)</source>
        <translation>峰值已分配 (MB)</translation>
    </message>
    <message>
        <source>peak reserved (MB)</source>
        <translation>峰值预留 (MB)</translation>
    </message>
    <message>
        <source>process reserved, APP (MB)</source>
        <translation>进程预留，APP (MB)</translation>
    </message>
    <message>
        <source>Memory, highest rank</source>
        <translation>内存（最高的 rank）</translation>
    </message>
    <message>
        <source>no memory data on either side (capture with profile_memory=True)</source>
        <translation>两侧都没有内存数据（采集时请设置 profile_memory=True）</translation>
    </message>
</context>
<context>
    <name>ComponentChart</name>
    <message>
        <source>Reserved per runtime component</source>
        <translation>各运行时组件的预留内存</translation>
    </message>
    <message>
        <source>time from the start of the peak&apos;s step</source>
        <translation>相对峰值所在 step 起点的时间</translation>
    </message>
    <message>
        <source>reserved (GB)</source>
        <translation>预留 (GB)</translation>
    </message>
    <message>
        <source>No per-component memory (npu_module_mem) in this capture.</source>
        <translation>此次采集没有分组件的内存数据（npu_module_mem）。</translation>
    </message>
</context>
<context>
    <name>CoreText</name>
    <message>
        <source>counted</source>
        <translation>计入</translation>
    </message>
    <message>
        <source>suspicious</source>
        <translation>可疑</translation>
    </message>
    <message>
        <source>excluded</source>
        <translation>排除</translation>
    </message>
    <message>
        <source>no FLOP rule</source>
        <translation>无 FLOPs 规则</translation>
    </message>
    <message>
        <source>cube</source>
        <translation>cube</translation>
    </message>
    <message>
        <source>vector</source>
        <translation>vector</translation>
    </message>
    <message>
        <source>mix</source>
        <translation>mix</translation>
    </message>
    <message>
        <source>aicpu</source>
        <translation>aicpu</translation>
    </message>
    <message>
        <source>comm</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>other</source>
        <translation>其他</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>FLOPs-based MFU</source>
        <translation>基于 FLOPs 的 MFU</translation>
    </message>
    <message>
        <source>hardware cube utilisation (cube_utilization, not MFU)</source>
        <translation>硬件 cube 利用率（cube_utilization，非 MFU）</translation>
    </message>
    <message>
        <source>device-busy proxy (proxy, not MFU)</source>
        <translation>设备繁忙代理值（代理值，非真实 MFU）</translation>
    </message>
    <message>
        <source>&lt; 20 %: far from peak — typically memory bandwidth, launch overhead, or small/irregular shapes.</source>
        <translation>&lt; 20 %: 远离峰值，通常受访存带宽、下发开销或小/不规则 shape 限制。</translation>
    </message>
    <message>
        <source>20–30 %: low.</source>
        <translation>20–30 %: 偏低。</translation>
    </message>
    <message>
        <source>30–60 %: medium to good; many general workloads sit here.</source>
        <translation>30–60 %: 中等偏好，多数通用负载在此区间。</translation>
    </message>
    <message>
        <source>60–70 %: good, above typical general workloads.</source>
        <translation>60–70 %: 良好，高于一般通用负载。</translation>
    </message>
    <message>
        <source>&gt; 70 %: shape, parallelism and implementation are close to the device limit.</source>
        <translation>&gt; 70 %: shape、并行度和实现已接近硬件极限。</translation>
    </message>
    <message>
        <source>&gt; 100 % is physically impossible: check the shapes (transposes), the peak (chip, dtype) and the time unit.</source>
        <translation>&gt; 100 %: 物理上不可能，请检查 shape（转置）、峰值（芯片、数据类型）和时间单位。</translation>
    </message>
    <message>
        <source>compute</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>访存</translation>
    </message>
    <message>
        <source>&lt; 20 % of HBM bandwidth: far from the memory roof — small tensors (launch overhead), strided or scattered access, or a kernel bound by its vector/scalar pipeline rather than by memory.</source>
        <translation>&lt; 20 % HBM 带宽：远离访存上限——张量太小（下发开销）、跨步或离散访问，或 kernel 受限于 vector/scalar 流水而非访存。</translation>
    </message>
    <message>
        <source>20–30 % of HBM bandwidth: low.</source>
        <translation>20–30 % HBM 带宽：偏低。</translation>
    </message>
    <message>
        <source>30–60 % of HBM bandwidth: medium; fusing it with its neighbours saves a round trip to HBM.</source>
        <translation>30–60 % HBM 带宽：中等；与相邻算子融合可省去一次 HBM 往返。</translation>
    </message>
    <message>
        <source>60–70 % of HBM bandwidth: good.</source>
        <translation>60–70 % HBM 带宽：良好。</translation>
    </message>
    <message>
        <source>&gt; 70 % of HBM bandwidth: close to the memory roof — only moving fewer bytes (fusion, lower precision) makes it faster.</source>
        <translation>&gt; 70 % HBM 带宽：接近访存上限——只有减少搬运的字节（融合、更低精度）才能更快。</translation>
    </message>
    <message>
        <source>&gt; 100 % of HBM bandwidth: faster than HBM — on-chip cache hits (a tensor re-read from L2), or a wrong shape, dtype or bandwidth.</source>
        <translation>&gt; 100 % HBM 带宽：快于 HBM——片上缓存命中（张量从 L2 重复读取），或 shape、数据类型、带宽有误。</translation>
    </message>
    <message>
        <source>advertised</source>
        <translation>标称</translation>
    </message>
    <message>
        <source>achievable</source>
        <translation>实测可达</translation>
    </message>
    <message>
        <source>compute achievable</source>
        <translation>算力实测可达</translation>
    </message>
    <message>
        <source>bandwidth achievable</source>
        <translation>带宽实测可达</translation>
    </message>
    <message>
        <source>fitted</source>
        <translation>拟合</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>Inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>Missing inputs</source>
        <translation>缺少的输入</translation>
    </message>
    <message>
        <source>Formulas</source>
        <translation>公式</translation>
    </message>
    <message>
        <source>Result</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Interpretation</source>
        <translation>解读</translation>
    </message>
    <message>
        <source>Hints</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>Conventions</source>
        <translation>口径</translation>
    </message>
    <message>
        <source>type</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>accelerator core</source>
        <translation>加速核</translation>
    </message>
    <message>
        <source>duration</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>input shapes</source>
        <translation>输入 shape</translation>
    </message>
    <message>
        <source>output shapes</source>
        <translation>输出 shape</translation>
    </message>
    <message>
        <source>input dtypes</source>
        <translation>输入数据类型</translation>
    </message>
    <message>
        <source>compute dtype</source>
        <translation>计算精度</translation>
    </message>
    <message>
        <source>step</source>
        <translation>step</translation>
    </message>
    <message>
        <source>status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>achieved</source>
        <translation>达成算力</translation>
    </message>
    <message>
        <source>peak</source>
        <translation>峰值</translation>
    </message>
    <message>
        <source>bytes</source>
        <translation>字节数</translation>
    </message>
    <message>
        <source>achieved bandwidth</source>
        <extracomment>Words of formula lines and result values, longest first (numbers and symbols are never touched).</extracomment>
        <translation>达成带宽</translation>
    </message>
    <message>
        <source>arithmetic intensity</source>
        <translation>算术强度</translation>
    </message>
    <message>
        <source>bandwidth utilisation</source>
        <translation>带宽利用率</translation>
    </message>
    <message>
        <source>roofline-attainable time</source>
        <translation>Roofline 可达时间</translation>
    </message>
    <message>
        <source>lost time</source>
        <translation>损失时间</translation>
    </message>
    <message>
        <source>cube utilization (hardware counter, not MFU)</source>
        <translation>cube 利用率（硬件计数器，非 MFU）</translation>
    </message>
    <message>
        <source>executed FLOPs (HFU view)</source>
        <translation>实际执行 FLOPs（HFU 口径）</translation>
    </message>
    <message>
        <source>FLOPs per call</source>
        <translation>单次调用 FLOPs</translation>
    </message>
    <message>
        <source>bytes per call</source>
        <translation>单次调用字节数</translation>
    </message>
    <message>
        <source>HBM bandwidth</source>
        <translation>HBM 带宽</translation>
    </message>
    <message>
        <source>time</source>
        <translation>耗时</translation>
    </message>
    <message>
        <source>calls</source>
        <translation>调用次数</translation>
    </message>
    <message>
        <source>tokens/s</source>
        <translation>tokens/s</translation>
    </message>
    <message>
        <source>step time</source>
        <translation>step 耗时</translation>
    </message>
    <message>
        <source>exact</source>
        <translation>精确</translation>
    </message>
    <message>
        <source>high</source>
        <translation>高</translation>
    </message>
    <message>
        <source>medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>low</source>
        <translation>低</translation>
    </message>
    <message>
        <source>operator</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>time per call</source>
        <translation>单次耗时</translation>
    </message>
    <message>
        <source>chips</source>
        <translation>芯片数</translation>
    </message>
    <message>
        <source>peak per chip</source>
        <translation>单芯片峰值</translation>
    </message>
    <message>
        <source>layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <source>layers</source>
        <translation>层数</translation>
    </message>
    <message>
        <source>flops per token</source>
        <translation>每 token FLOPs</translation>
    </message>
    <message>
        <source>FLOPs per token</source>
        <translation>每 token FLOPs</translation>
    </message>
    <message>
        <source>batch</source>
        <translation>批大小</translation>
    </message>
    <message>
        <source>MFU without attention</source>
        <translation>MFU（不含 attention）</translation>
    </message>
    <message>
        <source>MFU with attention</source>
        <translation>MFU（含 attention）</translation>
    </message>
    <message>
        <source>target MFU</source>
        <translation>目标 MFU</translation>
    </message>
    <message>
        <source>shapes and dtypes</source>
        <translation>shape 与数据类型</translation>
    </message>
    <message>
        <source>rematerialisation FLOPs per token</source>
        <translation>每 token 重计算 FLOPs</translation>
    </message>
    <message>
        <source>params</source>
        <translation>参数量</translation>
    </message>
    <message>
        <source>override</source>
        <translation>覆盖值</translation>
    </message>
    <message>
        <source>observed throughput</source>
        <translation>实测吞吐</translation>
    </message>
    <message>
        <source>mask convention</source>
        <translation>掩码约定</translation>
    </message>
    <message>
        <source>heads</source>
        <translation>头数</translation>
    </message>
    <message>
        <source>heads (N_q)</source>
        <translation>头数 (N_q)</translation>
    </message>
    <message>
        <source>output dtypes</source>
        <translation>输出数据类型</translation>
    </message>
    <message>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>weight</source>
        <translation>权重</translation>
    </message>
    <message>
        <source>bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <source>no bytes: no shapes recorded</source>
        <translation>无字节数：未记录 shape</translation>
    </message>
    <message>
        <source>no bytes: no tensor in the shapes</source>
        <translation>无字节数：shape 中没有张量</translation>
    </message>
    <message>
        <source>is_causal not recorded: full attention assumed</source>
        <translation>未记录 is_causal：按完整 attention 计算</translation>
    </message>
    <message>
        <source>only routed tokens are counted: E does not multiply</source>
        <translation>只统计路由到的 token：不乘以 E</translation>
    </message>
    <message>
        <source>output not recorded: taken as large as the largest input</source>
        <translation>未记录输出：按最大输入的大小计</translation>
    </message>
    <message>
        <source>MFU = Σ (FLOPs_i / peak_i) / Σ t_i over counted kernels (operator achievement rate, 算子达成率)</source>
        <translation>MFU = Σ (FLOPs_i / peak_i) / Σ t_i，对计入的算子求和（算子达成率口径）</translation>
    </message>
    <message>
        <source>step MFU = Σ FLOPs_i / peak_i over the step time Computing + Communication(Not Overlapped) + Free</source>
        <translation>step MFU = Σ FLOPs_i / peak_i 除以 step 耗时 Computing + Communication(Not Overlapped) + Free</translation>
    </message>
    <message>
        <source>kernels with MFU &gt; 100 % are kept out of aggregates</source>
        <translation>MFU &gt; 100 % 的算子不计入汇总</translation>
    </message>
    <message>
        <source>kernels with MFU &gt; 100 % are kept in aggregates</source>
        <translation>MFU &gt; 100 % 的算子计入汇总</translation>
    </message>
    <message>
        <source>FlashAttention backward: model FLOPs, 2 × forward</source>
        <translation>FlashAttention 反向：模型 FLOPs，前向的 2 倍</translation>
    </message>
    <message>
        <source>FlashAttention backward: executed FLOPs incl. recomputed QKᵀ (HFU view)</source>
        <translation>FlashAttention 反向：实际执行 FLOPs，含重计算的 QKᵀ（HFU 口径）</translation>
    </message>
    <message>
        <source>FP32 on the cube runs at ¼ of the FP16 rate on Ascend A2/A3 (CUDA-core rate on NVIDIA): BF16/FP16, or HF32/TF32 (torch.npu.matmul.allow_hf32 / allow_tf32), is up to 4× faster.</source>
        <translation>FP32 在 Ascend A2/A3 的 Cube 上只有 FP16 算力的 ¼（NVIDIA 上为 CUDA core 算力）：改用 BF16/FP16，或 HF32/TF32（torch.npu.matmul.allow_hf32 / allow_tf32），最多可快 4 倍。</translation>
    </message>
    <message>
        <source>MFU &gt; 100 %: re-check M/N/K (a transposed operand read as [N,K] inflates N), the peak&apos;s dtype and chip, and that the time is per call in µs.</source>
        <translation>MFU &gt; 100 %：请复查 M/N/K（转置的操作数按 [N,K] 读取会放大 N）、峰值对应的数据类型和芯片，以及耗时是否为以 µs 计的单次调用耗时。</translation>
    </message>
    <message>
        <source>free: device idle (host gaps)</source>
        <translation>空闲时间：设备空闲（Host 间隙）</translation>
    </message>
    <message>
        <source>communication not overlapped</source>
        <translation>未掩盖通信</translation>
    </message>
    <message>
        <source>pipeline bubble</source>
        <translation>流水线空泡 (Bubble)</translation>
    </message>
    <message>
        <source>time in the step when the device runs no kernel: the host did not launch work fast enough (operator dispatch, data loading, synchronisation)</source>
        <translation>step 内设备没有执行任何算子的时间：Host 侧下发不够快（算子下发、数据加载、同步）</translation>
    </message>
    <message>
        <source>communication the computation did not hide: the step waits for it</source>
        <translation>未被计算掩盖的通信：step 要等待它完成</translation>
    </message>
    <message>
        <source>pipeline stages waiting for each other</source>
        <translation>流水线各 stage 相互等待</translation>
    </message>
    <message>
        <source>{0} kernel {1}</source>
        <extracomment>Engine sentences with values in them: (pattern, template). The template (translated) is filled with the pattern&apos;s groups, each group itself passed through :func:`ct` (a word like &quot;exact&quot;).</extracomment>
        <translation>{0} 算子 {1}</translation>
    </message>
    <message>
        <source>confidence: {0}</source>
        <translation>置信度：{0}</translation>
    </message>
    <message>
        <source>transpose-safe: M, N from the output {0}; K = {1} from A and B (agree)</source>
        <translation>转置安全：M、N 取自输出 {0}；K = {1} 取自 A 和 B（一致）</translation>
    </message>
    <message>
        <source>K = {0} is small (&lt; {1}): each output tile does little cube work per data move; fuse matmuls or enlarge the contracted dimension.</source>
        <translation>K = {0} 偏小（&lt; {1}）：每个输出分块每次搬运数据只做很少的 Cube 计算；可融合矩阵乘或增大收缩维度。</translation>
    </message>
    <message>
        <source>M = {0} is small (&lt; {1}): tiny batch·sequence leaves cube cores idle; increase the micro-batch or fuse.</source>
        <translation>M = {0} 偏小（&lt; {1}）：batch·sequence 太小导致 Cube 核空闲；可增大 micro-batch 或融合。</translation>
    </message>
    <message>
        <source>{0} not a multiple of 16: the 16×16×16 cube fractals are padded; pad the model dims (hidden, vocab, heads·head_dim) to multiples of 16.</source>
        <translation>{0} 不是 16 的倍数：16×16×16 的 Cube 分形会被填充；建议把模型维度（hidden、vocab、heads·head_dim）补齐到 16 的倍数。</translation>
    </message>
    <message>
        <source>{0} not a multiple of {1}: large matmuls tile best at multiples of {2}.</source>
        <translation>{0} 不是 {1} 的倍数：大矩阵乘在 {2} 的倍数上分块效果最好。</translation>
    </message>
    <message>
        <source>Only {0} MFLOP per call: launch and scheduling overhead dominate; fuse small ops or batch them.</source>
        <translation>单次调用仅 {0} MFLOP：下发和调度开销占主导；可融合小算子或合并批处理。</translation>
    </message>
    <message>
        <source>info.json: {0} AI cores × {1} MHz → {2} TFLOP/s FP16/BF16 ({3}-class)</source>
        <translation>info.json：{0} 个 AI Core × {1} MHz → {2} TFLOP/s FP16/BF16（{3} 同级）</translation>
    </message>
    <message>
        <source>FP32 matmuls use the {0} peak</source>
        <translation>FP32 矩阵乘使用 {0} 峰值</translation>
    </message>
    <message>
        <source>FlashAttention sparse_mode: {0} (inferred per kernel from atten_mask)</source>
        <translation>FlashAttention sparse_mode：{0}（逐算子由 atten_mask 推断）</translation>
    </message>
    <message>
        <source>FlashAttention sparse_mode: {0} (your choice in Assumptions)</source>
        <translation>FlashAttention sparse_mode：{0}（你在“假设”中的选择）</translation>
    </message>
    <message>
        <source>FlashAttention layout: {0} (inferred from softmax_max&apos;s shape)</source>
        <translation>FlashAttention 布局：{0}（由 softmax_max 的 shape 推断）</translation>
    </message>
    <message>
        <source>FlashAttention layout: {0} (your choice in Assumptions)</source>
        <translation>FlashAttention 布局：{0}（你在“假设”中的选择）</translation>
    </message>
    <message>
        <source>mask geometry: {0}</source>
        <translation>mask 几何口径：{0}</translation>
    </message>
    <message>
        <source>cpu coefficient of {0} assumed {1} (“Assumed cpu coefficient” on the left)</source>
        <translation>{0} 的 cpu 系数假设为 {1}（左侧“假设的 cpu 系数”）</translation>
    </message>
    <message>
        <source>{0} not set (an assumption of the seed model): step not predicted — set it in Tools → Chip catalog, or “Assumed cpu coefficient” on the left</source>
        <translation>未设置 {0}（种子模型的假设）：未预估 step——请在“工具 → 芯片规格库”中设置，或设置左侧的“假设的 cpu 系数”</translation>
    </message>
    <message>
        <source>chosen (Source chip)</source>
        <translation>已选择（源芯片）</translation>
    </message>
    <message>
        <source>detected in the profile ({0}-class); predicted with the values of the seed&apos;s {1} row, the same peaks and bandwidths plus the cpu coefficient the step needs</source>
        <translation>由 Profiling 数据识别（{0} 同级）；使用种子表中 {1} 一行的数值进行预估：峰值和带宽相同，并带有 step 预估所需的 cpu 系数</translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation>计算受限</translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation>访存受限</translation>
    </message>
    <message>
        <source>intensity</source>
        <translation>算术强度</translation>
    </message>
    <message>
        <source>written</source>
        <translation>写</translation>
    </message>
    <message>
        <source>inputs</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>read</source>
        <translation>读</translation>
    </message>
    <message>
        <source>roofline</source>
        <translation>Roofline</translation>
    </message>
</context>
<context>
    <name>DropHint</name>
    <message>
        <source>Drop to open
(hold Ctrl to add to the open profile, Shift to replace it)</source>
        <extracomment>A compact card (a short window): caption and value only; the detail is in the tooltip. Card details are cut at this length, and where they would run past the card (the tooltip has them whole). Point sizes a card value may take, largest first: a long value (an MFU range) shrinks before it is elided.</extracomment>
        <translation>松开即可打开
（按住 Ctrl 添加到已打开的数据，按住 Shift 替换）</translation>
    </message>
</context>
<context>
    <name>ExportDialog</name>
    <message>
        <source>Export analysis</source>
        <translation>导出分析结果</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>目录</translation>
    </message>
    <message>
        <source>Parquet (kernels)</source>
        <translation>Parquet（算子明细）</translation>
    </message>
    <message>
        <source>Tables</source>
        <translation>表格</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>summary.json and summary.md (top kernels by lost MFU, conventions) are always written. Nothing is written inside or above a profiler folder, nor over files MFU Desktop did not write.</source>
        <translation>总是写出 summary.json 和 summary.md（按损失时间排序的热点算子、所用口径）。绝不会写入 Profiling 数据目录或其上级目录，也不会覆盖不是 MFU Desktop 写出的文件。</translation>
    </message>
    <message>
        <source>Export to</source>
        <translation>导出到</translation>
    </message>
</context>
<context>
    <name>ExportGuard</name>
    <message>
        <source>Replace the earlier export?</source>
        <translation>替换先前的导出？</translation>
    </message>
    <message>
        <source>{0} holds an earlier export of MFU Desktop. Replace its files ({1})? Nothing else in the folder is touched.</source>
        <translation>{0} 中有 MFU Desktop 先前的导出。要替换这些文件（{1}）吗？目录中的其他内容不会被改动。</translation>
    </message>
    <message>
        <source>Export refused: {0}</source>
        <translation>拒绝导出：{0}</translation>
    </message>
</context>
<context>
    <name>Field</name>
    <message>
        <source>“{0}” is not an integer</source>
        <translation>“{0}”不是整数</translation>
    </message>
    <message>
        <source>must be positive</source>
        <translation>必须为正数</translation>
    </message>
    <message>
        <source>must not be negative</source>
        <translation>不能为负数</translation>
    </message>
    <message>
        <source>“{0}” is not a number</source>
        <translation>“{0}”不是数字</translation>
    </message>
    <message>
        <source>“{0}” is not a shape such as 2,4096,32,128</source>
        <translation>“{0}”不是形如 2,4096,32,128 的 shape</translation>
    </message>
    <message>
        <source>“{0}” is not a list of integers such as 3,7,12</source>
        <translation>“{0}”不是形如 3,7,12 的整数列表</translation>
    </message>
    <message>
        <source>give non-negative integers separated by commas</source>
        <translation>请输入以逗号分隔的非负整数</translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message>
        <source>Find</source>
        <translation>查找</translation>
    </message>
    <message>
        <source>kernel name or operator type…</source>
        <translation>算子名或算子类型…</translation>
    </message>
    <message>
        <source>Close (Esc): every row is shown again</source>
        <translation>关闭 (Esc)：重新显示所有行</translation>
    </message>
    <message>
        <source>no match in the open tabs</source>
        <translation>已打开的页面中没有匹配项</translation>
    </message>
</context>
<context>
    <name>GroupScatter</name>
    <message>
        <source>Per group: BASE vs NEW (µs per step, log scale)</source>
        <translation>各算子分组：BASE 对比 NEW（每 step µs，对数坐标）</translation>
    </message>
    <message>
        <source>BASE (µs per step)</source>
        <translation>BASE（µs / step）</translation>
    </message>
    <message>
        <source>NEW (µs per step)</source>
        <translation>NEW（µs / step）</translation>
    </message>
    <message>
        <source>measured</source>
        <translation>实测</translation>
    </message>
    <message>
        <source>predicted for NEW&apos;s chip</source>
        <translation>NEW 芯片上的预估</translation>
    </message>
    <message>
        <source>unchanged (y = x)</source>
        <translation>未变化（y = x）</translation>
    </message>
    <message>
        <source>No operator group is on both sides.</source>
        <translation>两侧没有共同的算子分组。</translation>
    </message>
</context>
<context>
    <name>Help</name>
    <message>
        <source>Keyboard shortcuts</source>
        <translation>键盘快捷键</translation>
    </message>
    <message>
        <source>Every tab and every view of the Profiler tab has one; Ctrl+F finds kernels and operator types in every open tab.</source>
        <translation>每个页面以及 Profiling 分析页的每个视图都有快捷键；Ctrl+F 在所有已打开的页面中查找算子和算子类型。</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Keys</source>
        <translation>按键</translation>
    </message>
</context>
<context>
    <name>HotOpsChart</name>
    <message>
        <source>Hot operators</source>
        <translation>热点算子</translation>
    </message>
    <message>
        <source>time per step</source>
        <extracomment>The scatter shows at most this many kernels (the longest ones); a million points would make the plot unusable and add nothing a table does not show better. Bars of non-operator time: the step breakdown&apos;s colours, hatched (they are not operators). A bar was clicked: its row (``kind`` ``operator`` or a step-breakdown column, type, input_shapes …).</extracomment>
        <translation>每 step 耗时</translation>
    </message>
    <message>
        <source>lost time per step</source>
        <translation>每 step 损失时间</translation>
    </message>
    <message>
        <source>Hot operators by lost time: no kernel has a lost time — no FLOPs-based MFU and no bytes (switch to “by total time”).</source>
        <translation>按损失时间的热点算子：没有 kernel 有损失时间——既无基于 FLOPs 的 MFU，也无字节数（请切换到“按总时间”）。</translation>
    </message>
    <message>
        <source>Hot operators: no kernels.</source>
        <translation>热点算子：没有算子。</translation>
    </message>
    <message>
        <source>{0} µs per step</source>
        <translation>每 step {0} µs</translation>
    </message>
    <message>
        <source>Click: the step breakdown</source>
        <translation>点击：查看 step 拆解</translation>
    </message>
    <message>
        <source>{0} calls per step · {1} µs per step</source>
        <translation>每 step 调用 {0} 次 · 每 step {1} µs</translation>
    </message>
    <message>
        <source>lost {0} µs per step (measured − roofline-attainable)</source>
        <translation>每 step 损失 {0} µs（实测 − Roofline 可达）</translation>
    </message>
    <message>
        <source>compute-bound</source>
        <translation>计算受限</translation>
    </message>
    <message>
        <source>memory-bound</source>
        <translation>访存受限</translation>
    </message>
    <message>
        <source>BW {0} of HBM</source>
        <translation>带宽利用率 {0}（HBM）</translation>
    </message>
    <message>
        <source>Click: its kernels and their derivation</source>
        <translation>点击：查看其算子明细与推导</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Calculator</source>
        <translation>计算器</translation>
    </message>
    <message>
        <source>Profiler</source>
        <translation>Profiling 分析</translation>
    </message>
    <message>
        <source>Prediction</source>
        <translation>跨芯片预估</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>性能对比</translation>
    </message>
    <message>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Open folder…</source>
        <translation>打开目录(&amp;O)…</translation>
    </message>
    <message>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <source>Open the &amp;demo profile</source>
        <translation>打开演示数据(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Export analysis…</source>
        <translation>导出分析结果(&amp;E)…</translation>
    </message>
    <message>
        <source>Export &amp;prediction CSV…</source>
        <translation>导出预估 CSV(&amp;P)…</translation>
    </message>
    <message>
        <source>Export the rank as a &amp;Chrome trace…</source>
        <translation>将该 rank 导出为 &amp;Chrome trace…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>Hot operators shown</source>
        <translation>显示的热点算子数</translation>
    </message>
    <message>
        <source>&amp;Tools</source>
        <translation>工具(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Chip catalog…</source>
        <translation>芯片规格库(&amp;C)…</translation>
    </message>
    <message>
        <source>Clear the &amp;cache of parsed profiles</source>
        <translation>清除已解析数据的缓存(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>&amp;Formulas and conventions</source>
        <translation>公式与口径(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;User guide</source>
        <translation>用户指南(&amp;U)</translation>
    </message>
    <message>
        <source>&amp;Keyboard shortcuts</source>
        <translation>键盘快捷键(&amp;K)</translation>
    </message>
    <message>
        <source>&amp;About MFU Desktop</source>
        <translation>关于 MFU Desktop(&amp;A)</translation>
    </message>
    <message>
        <source>Open &amp;trace or db files…</source>
        <translation>打开 trace 或 db 文件(&amp;T)…</translation>
    </message>
    <message>
        <source>&amp;Add a folder to the open profile…</source>
        <translation>向已打开的数据添加目录(&amp;A)…</translation>
    </message>
    <message>
        <source>Co&amp;mpare with a folder…</source>
        <translation>与目录对比(&amp;M)…</translation>
    </message>
    <message>
        <source>Compare with trace or db &amp;files…</source>
        <translation>与 trace 或 db 文件对比(&amp;F)…</translation>
    </message>
    <message>
        <source>Profiler &amp;views</source>
        <translation>Profiling 视图(&amp;V)</translation>
    </message>
    <message>
        <source>Rank &amp;tree</source>
        <translation>Rank 树(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Find kernels and types…</source>
        <translation>查找算子和类型(&amp;F)…</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>算子明细</translation>
    </message>
    <message>
        <source>By type</source>
        <translation>按类型</translation>
    </message>
    <message>
        <source>By type and shape</source>
        <translation>按类型和 shape</translation>
    </message>
    <message>
        <source>Prediction detail</source>
        <translation>预估明细</translation>
    </message>
    <message>
        <source>Open a profiler folder</source>
        <translation>打开 Profiling 数据目录</translation>
    </message>
    <message>
        <source>Open profiler files</source>
        <translation>打开性能数据文件</translation>
    </message>
    <message>
        <source>Compare with (NEW): trace or db files</source>
        <translation>对比（NEW）：trace 或 db 文件</translation>
    </message>
    <message>
        <source>Profiler files (*.json *.json.gz *.csv *.db);;All files (*)</source>
        <translation>性能数据文件 (*.json *.json.gz *.csv *.db);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Add a profiler folder to the open profile</source>
        <translation>向已打开的数据添加 Profiling 目录</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>A profile is open. Add {0} to it, or replace it?</source>
        <translation>已打开一份 Profiling 数据。要把 {0} 添加进去，还是替换它？</translation>
    </message>
    <message>
        <source>Hold Ctrl while dropping to add, Shift to replace, without this question.</source>
        <translation>拖放时按住 Ctrl 直接添加、按住 Shift 直接替换，不再询问。</translation>
    </message>
    <message>
        <source>Add to the open profile</source>
        <translation>添加到已打开的数据</translation>
    </message>
    <message>
        <source>Replace it</source>
        <translation>替换</translation>
    </message>
    <message>
        <source>Nothing to open: {0} does not exist.</source>
        <translation>无法打开：{0} 不存在。</translation>
    </message>
    <message>
        <source>Not found, skipped: {0}</source>
        <translation>未找到，已跳过：{0}</translation>
    </message>
    <message>
        <source>(none yet)</source>
        <translation>（暂无）</translation>
    </message>
    <message>
        <source>Clear the list</source>
        <translation>清空列表</translation>
    </message>
    <message>
        <source>{0} no longer exists; removed from the recent list.</source>
        <translation>{0} 已不存在，已从最近列表中移除。</translation>
    </message>
    <message>
        <source>Compare with (NEW)</source>
        <translation>与 NEW 对比</translation>
    </message>
    <message>
        <source>Nothing to export yet: open a profile first.</source>
        <translation>暂无可导出的内容：请先打开 Profiling 数据。</translation>
    </message>
    <message>
        <source>Export refused: {0}</source>
        <translation>拒绝导出：{0}</translation>
    </message>
    <message>
        <source>Export failed: {0}</source>
        <translation>导出失败：{0}</translation>
    </message>
    <message>
        <source>Exported {0} files to {1}</source>
        <translation>已导出 {0} 个文件到 {1}</translation>
    </message>
    <message>
        <source>Exporting</source>
        <translation>正在导出</translation>
    </message>
    <message>
        <source>The language changes the next time MFU Desktop starts.</source>
        <translation>语言将在下次启动 MFU Desktop 时生效。</translation>
    </message>
    <message>
        <source>Chip catalog reloaded: {0} chips</source>
        <translation>芯片规格库已重新加载：{0} 款芯片</translation>
    </message>
    <message>
        <source>Removed {0} cached file(s)</source>
        <translation>已删除 {0} 个缓存文件</translation>
    </message>
</context>
<context>
    <name>MemoryCurveChart</name>
    <message>
        <source>Memory over the capture</source>
        <translation>采集期间的内存</translation>
    </message>
    <message>
        <source>time from the start of the peak&apos;s step</source>
        <extracomment>Points per drawn curve (a million memory records draw as this many). Colours: allocated, reserved, the process, the chip&apos;s capacity, the peak. Runtime components (npu_module_mem) get these colours in turn. Step windows alternate between these two fills (alpha) so neighbouring steps are told apart.</extracomment>
        <translation>相对峰值所在 step 起点的时间</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>memory (GB)</source>
        <translation>内存 (GB)</translation>
    </message>
    <message>
        <source>allocated</source>
        <translation>已分配</translation>
    </message>
    <message>
        <source>reserved</source>
        <translation>预留</translation>
    </message>
    <message>
        <source>process (APP)</source>
        <translation>进程 (APP)</translation>
    </message>
    <message>
        <source>No memory curve in this capture.</source>
        <translation>此次采集没有内存曲线。</translation>
    </message>
    <message>
        <source>step {0}</source>
        <translation>step {0}</translation>
    </message>
    <message>
        <source>capacity {0} GB</source>
        <translation>容量 {0} GB</translation>
    </message>
</context>
<context>
    <name>MemoryView</name>
    <message>
        <source>Memory</source>
        <extracomment>A footprint above this share of the chip&apos;s memory is shown as tight (amber), above 1 as not fitting (red).</extracomment>
        <translation>内存</translation>
    </message>
    <message>
        <source>Peak allocated</source>
        <translation>峰值已分配</translation>
    </message>
    <message>
        <source>Peak reserved</source>
        <translation>峰值预留</translation>
    </message>
    <message>
        <source>Process reserved (APP)</source>
        <translation>进程预留 (APP)</translation>
    </message>
    <message>
        <source>Fits on the chip?</source>
        <translation>芯片放得下吗？</translation>
    </message>
    <message>
        <source>Live at the peak</source>
        <translation>峰值时存活的内存</translation>
    </message>
    <message>
        <source>Runtime components</source>
        <translation>运行时组件</translation>
    </message>
    <message>
        <source>Memory: open a profile captured with profile_memory=True.</source>
        <translation>内存：请打开以 profile_memory=True 采集的 profiling 数据。</translation>
    </message>
    <message>
        <source>Rank {0} has no memory figures: {1}</source>
        <translation>Rank {0} 没有内存数据：{1}</translation>
    </message>
    <message>
        <source>This rank was read from a cluster summary: its memory curve is in its profile folder, not in the summary.</source>
        <translation>此 rank 读自集群汇总：内存曲线在其 profiling 文件夹中，不在汇总里。</translation>
    </message>
    <message>
        <source>Source: {0}.</source>
        <translation>来源：{0}。</translation>
    </message>
    <message>
        <source>{0} ms into step {1}</source>
        <translation>step {1} 开始后 {0} ms</translation>
    </message>
    <message>
        <source>{0} ms into the capture</source>
        <translation>采集开始后 {0} ms</translation>
    </message>
    <message>
        <source>allocator</source>
        <translation>分配器</translation>
    </message>
    <message>
        <source>{0} not released within the capture</source>
        <translation>{0} 在采集期间未释放</translation>
    </message>
    <message>
        <source>the chip&apos;s memory is unknown (no memory_gb in the catalog for it)</source>
        <translation>芯片内存容量未知（芯片目录中没有它的 memory_gb）</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source>{0} short of {1}</source>
        <translation>比 {1} 多出 {0}</translation>
    </message>
    <message>
        <source>yes, {0}</source>
        <translation>是，{0}</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>{0} free of {1}</source>
        <translation>{1} 中剩余 {0}</translation>
    </message>
    <message>
        <source>the process&apos;s reserved memory (APP)</source>
        <translation>进程预留内存 (APP)</translation>
    </message>
    <message>
        <source>{0} reserved</source>
        <translation>{0} 预留</translation>
    </message>
    <message>
        <source>{0} allocated</source>
        <translation>{0} 已分配</translation>
    </message>
    <message>
        <source>Allocated by</source>
        <translation>分配者</translation>
    </message>
    <message>
        <source>the operator that allocated the tensor</source>
        <translation>分配该张量的算子</translation>
    </message>
    <message>
        <source>MB</source>
        <translation>MB</translation>
    </message>
    <message>
        <source>Allocated (ms)</source>
        <translation>分配时刻 (ms)</translation>
    </message>
    <message>
        <source>when it was allocated, from the start of the peak&apos;s step; negative: before it (e.g. weights allocated before the capture)</source>
        <translation>分配时刻，相对峰值所在 step 的起点；负值表示在其之前（例如采集前就已分配的权重）</translation>
    </message>
    <message>
        <source>No rank has memory data: capture with profile_memory=True.</source>
        <translation>没有任何 rank 有内存数据：采集时请设置 profile_memory=True。</translation>
    </message>
    <message>
        <source>Highest rank {0}: {1} allocated, {2} reserved, process {3}.</source>
        <translation>最高的 rank {0}：已分配 {1}，预留 {2}，进程 {3}。</translation>
    </message>
    <message>
        <source>{0} free of {1} on its chip.</source>
        <translation>其芯片 {1} 中剩余 {0}。</translation>
    </message>
    <message>
        <source>It does NOT fit on its chip: {0} short.</source>
        <translation>其芯片放不下：缺 {0}。</translation>
    </message>
    <message>
        <source>{0} rank(s) without memory data.</source>
        <translation>{0} 个 rank 没有内存数据。</translation>
    </message>
</context>
<context>
    <name>MessageCard</name>
    <message>
        <source>Dismiss</source>
        <extracomment>Widest a message card gets (px); narrower windows give it their width minus a margin.</extracomment>
        <translation>关闭</translation>
    </message>
</context>
<context>
    <name>MfuScatter</name>
    <message>
        <source>MFU per kernel</source>
        <translation>各算子 MFU</translation>
    </message>
    <message>
        <source>duration (µs, log scale)</source>
        <translation>耗时（µs，对数坐标）</translation>
    </message>
    <message>
        <source>MFU (%)</source>
        <translation>MFU (%)</translation>
    </message>
    <message>
        <source>MFU per kernel: select a rank in the tree to see its kernels.</source>
        <translation>各算子 MFU：在左侧树中选择一个 rank 查看其算子。</translation>
    </message>
    <message>
        <source>MFU per kernel: no kernel of this rank has a FLOPs-based MFU (see the fallback tier card and the Exclusions table).</source>
        <translation>各算子 MFU：该 rank 没有算子有基于 FLOPs 的 MFU（见兜底档位卡片和“排除项”表）。</translation>
    </message>
    <message>
        <source>MFU per kernel (the {0} longest of {1})</source>
        <translation>各算子 MFU（{1} 个中耗时最长的 {0} 个）</translation>
    </message>
</context>
<context>
    <name>Notices</name>
    <message>
        <source>The {0} translation is not installed; the interface stays in English.</source>
        <extracomment>How long ``--screenshot`` waits for the background work before giving up. How often (s) a worker thread running Python must offer the GIL (CPython&apos;s default: 0.005).</extracomment>
        <translation>未安装 {0} 翻译，界面保持英文。</translation>
    </message>
    <message>
        <source>Your chip catalog has problems ({0}); the bad rows are ignored.</source>
        <translation>你的芯片规格库有问题（{0}）；有问题的行已被忽略。</translation>
    </message>
    <message>
        <source>Your chip catalog had problems ({0}). {1} valid row(s) were kept; the original file was saved as {2}.</source>
        <translation>你的芯片规格库有问题（{0}）。已保留 {1} 个有效行；原文件已另存为 {2}。</translation>
    </message>
    <message>
        <source>Unexpected error: {0}. The app keeps running; details are in {1}</source>
        <translation>意外错误：{0}。程序继续运行；详情见 {1}</translation>
    </message>
    <message>
        <source>Settings file was unreadable ({why}); defaults are used and the old file was kept as {backup}.</source>
        <extracomment>Recent folders kept in File → Open recent. Notice templates (English source; the window shows them translated, placeholders filled).</extracomment>
        <translation>设置文件无法读取（{why}）；已使用默认设置，原文件保留为 {backup}。</translation>
    </message>
    <message>
        <source>Settings file was unreadable ({why}); defaults are used.</source>
        <translation>设置文件无法读取（{why}）；已使用默认设置。</translation>
    </message>
    <message>
        <source>Some settings were invalid and reset to defaults: {names}.</source>
        <translation>部分设置无效，已恢复默认：{names}。</translation>
    </message>
</context>
<context>
    <name>PairedBarsChart</name>
    <message>
        <source>Top changes: BASE and NEW</source>
        <translation>变化最大的算子：BASE 与 NEW</translation>
    </message>
    <message>
        <source>time per step</source>
        <translation>每 step 耗时</translation>
    </message>
    <message>
        <source>BASE</source>
        <translation>BASE</translation>
    </message>
    <message>
        <source>NEW</source>
        <translation>NEW</translation>
    </message>
    <message>
        <source>No operator groups to compare.</source>
        <translation>没有可对比的算子分组。</translation>
    </message>
    <message>
        <source>BASE {0} µs → NEW {1} µs per step</source>
        <translation>每 step：BASE {0} µs → NEW {1} µs</translation>
    </message>
</context>
<context>
    <name>PredictedStepChart</name>
    <message>
        <source>chip</source>
        <translation>芯片</translation>
    </message>
    <message>
        <source>Step per chip (mean per rank)</source>
        <translation>各芯片 step（每 rank 平均）</translation>
    </message>
    <message>
        <source>time per step</source>
        <translation>每 step 耗时</translation>
    </message>
    <message>
        <source>transfer</source>
        <translation>真实通信</translation>
    </message>
    <message>
        <source>wait</source>
        <translation>等待</translation>
    </message>
    <message>
        <source>computing</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>free</source>
        <translation>空闲时间</translation>
    </message>
    <message>
        <source>Step per chip: load a profile, then Predict.</source>
        <translation>各芯片 step：先加载 Profiling 数据，再点击“预估”。</translation>
    </message>
</context>
<context>
    <name>PredictionCharts</name>
    <message>
        <source>(OOM)</source>
        <extracomment>Step segments: computing, real transfer, waiting, free.</extracomment>
        <translation>(OOM)</translation>
    </message>
</context>
<context>
    <name>PredictionTab</name>
    <message>
        <source>Source and targets</source>
        <translation>基线与目标</translation>
    </message>
    <message>
        <source>Detected from the profile</source>
        <translation>从 Profiling 数据识别</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Source chip</source>
        <translation>基线芯片</translation>
    </message>
    <message>
        <source>Assumed cpu coefficient</source>
        <translation>假设的 cpu 系数</translation>
    </message>
    <message>
        <source>Target chips</source>
        <translation>目标芯片</translation>
    </message>
    <message>
        <source>Architecture rules (editable; every detail row names the rules that touched it)</source>
        <translation>架构规则（可编辑；每行明细都注明所用规则）</translation>
    </message>
    <message>
        <source>Predict</source>
        <translation>预估</translation>
    </message>
    <message>
        <source>Export CSV…</source>
        <translation>导出 CSV…</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>Select a chip in the results to see each kernel&apos;s prediction.</source>
        <translation>在结果中选择一款芯片，查看每个算子的预估。</translation>
    </message>
    <message>
        <source>Per-kernel detail</source>
        <translation>算子明细</translation>
    </message>
    <message>
        <source>Assumptions and notes</source>
        <translation>假设与说明</translation>
    </message>
    <message>
        <source>Every time is per step (mean over the captured steps) and per rank (mean over ranks).</source>
        <translation>所有耗时均为每 step（采集到的各 step 平均）、每 rank（各 rank 平均）的值。</translation>
    </message>
    <message>
        <source>Excluded from the prediction (per step, mean per rank): {0}</source>
        <translation>不参与预估（每 step、每 rank 平均）：{0}</translation>
    </message>
    <message>
        <source>Prediction: {0} target chip(s) for {1}</source>
        <translation>预估：{1} → {0} 个目标芯片</translation>
    </message>
    <message>
        <source>Load a profile first (Profiler tab or drag a folder onto the window).</source>
        <translation>请先加载 Profiling 数据（Profiling 分析页，或将目录拖到窗口）。</translation>
    </message>
    <message>
        <source>Prediction</source>
        <extracomment>Where a file dialog starts (the window gives its last folder).</extracomment>
        <translation>跨芯片预估</translation>
    </message>
    <message>
        <source>Load a profile first: the Profiler tab, or drop a folder on the window</source>
        <translation>请先加载 Profiling 数据：Profiling 分析页，或把目录拖到窗口上</translation>
    </message>
    <message>
        <source>cpu coefficient assumed for chips without one (an assumption: the step of such a chip is predicted with it, and the notes say so)</source>
        <translation>为没有 cpu 系数的芯片假设的系数（这是一个假设：这类芯片的 step 会用它来预估，并在说明中注明）</translation>
    </message>
    <message>
        <source>Roofline model: kernels without pipe counters are predicted from their FLOPs and bytes on both chips, with latency floors; seed model: the original script&apos;s ratios. Advertised: catalog peaks and HBM bandwidths; achievable: measured matmul FLOP/s (MAMF) and HBM bandwidth where both chips have one; fitted: advertised × each chip&apos;s efficiency fitted on public measurements. The default is the most accurate on the held-out public pairs (docs/accuracy.md)</source>
        <translation>Roofline 模型：没有流水线计数的 kernel 按其在两颗芯片上的 FLOPs 与字节数（含延迟下限）预估；种子模型：原始脚本的比值。标称：芯片库的峰值与 HBM 带宽；实测可达：两颗芯片都有实测值时用实测矩阵乘 FLOP/s（MAMF）与 HBM 带宽；拟合：标称值 × 每颗芯片在公开实测数据上拟合的效率。默认项是在留出的公开数据对上最准确的组合（docs/accuracy.md）</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>预估模型</translation>
    </message>
    <message>
        <source>Load a profile in the Profiler tab (or drop a folder on the window): its kernels are then predicted on the target chips checked on the left.</source>
        <translation>请在 Profiling 分析页加载数据（或把目录拖到窗口上）：之后会在左侧勾选的目标芯片上预估其算子。</translation>
    </message>
    <message>
        <source>Check at least one target chip.</source>
        <translation>请至少勾选一款目标芯片。</translation>
    </message>
    <message>
        <source>Predicting</source>
        <translation>正在预估</translation>
    </message>
    <message>
        <source>The prediction failed: {0}</source>
        <translation>预估失败：{0}</translation>
    </message>
    <message>
        <source>Source: {0} ({1})</source>
        <translation>基线：{0}（{1}）</translation>
    </message>
    <message>
        <source>Model: {0} — see docs/accuracy.md for the error this model has shown on public measurements</source>
        <translation>预估模型：{0} —— 该模型在公开实测数据上的误差见 docs/accuracy.md</translation>
    </message>
    <message>
        <source>Computing the per-kernel prediction on {0}…</source>
        <translation>正在计算 {0} 上各算子的预估…</translation>
    </message>
    <message>
        <source>Per-kernel prediction</source>
        <translation>算子级预估</translation>
    </message>
    <message>
        <source>{0}: {1} kernels</source>
        <translation>{0}：{1} 个算子</translation>
    </message>
    <message>
        <source>Export prediction CSV files to</source>
        <translation>导出预估 CSV 文件到</translation>
    </message>
    <message>
        <source>Nothing to export yet: run a prediction first.</source>
        <translation>暂无可导出的内容：请先运行预估。</translation>
    </message>
    <message>
        <source>Wrote {0}</source>
        <translation>已写出 {0}</translation>
    </message>
    <message>
        <source>Export failed: {0}</source>
        <translation>导出失败：{0}</translation>
    </message>
    <message>
        <source>Exporting prediction</source>
        <translation>正在导出预估</translation>
    </message>
</context>
<context>
    <name>ProfilerTab</name>
    <message>
        <source>Copy path</source>
        <translation>复制路径</translation>
    </message>
    <message>
        <source>Copy the full path of the folder shown</source>
        <translation>复制当前目录的完整路径</translation>
    </message>
    <message>
        <source>Operator MFU (算子达成率)</source>
        <translation>算子达成率 (MFU)</translation>
    </message>
    <message>
        <source>End-to-end step MFU</source>
        <translation>端到端 step MFU</translation>
    </message>
    <message>
        <source>Cube utilisation (not MFU)</source>
        <translation>cube 利用率（非 MFU）</translation>
    </message>
    <message>
        <source>Fallback tier</source>
        <translation>兜底档位</translation>
    </message>
    <message>
        <source>Chip and peak</source>
        <translation>芯片与峰值</translation>
    </message>
    <message>
        <source>Hot operators by total time</source>
        <translation>按总耗时排序的热点算子</translation>
    </message>
    <message>
        <source>Charts</source>
        <translation>图表</translation>
    </message>
    <message>
        <source>type contains…</source>
        <translation>类型包含…</translation>
    </message>
    <message>
        <source>name contains…</source>
        <translation>名称包含…</translation>
    </message>
    <message>
        <source>all statuses</source>
        <translation>全部状态</translation>
    </message>
    <message>
        <source>all classes</source>
        <translation>全部类别</translation>
    </message>
    <message>
        <source>Open in calculator</source>
        <translation>在计算器中打开</translation>
    </message>
    <message>
        <source>Kernels</source>
        <translation>算子明细</translation>
    </message>
    <message>
        <source>Profiler</source>
        <extracomment>Ranks of a cluster summary whose full kernel data is kept in memory at once (least recently used dropped). Below this tab height the summary cards drop their detail lines (it stays in their tooltips). The rank names&apos; column never gets narrower than this when the tree fits its columns.</extracomment>
        <translation>Profiling 分析</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline</translation>
    </message>
    <message>
        <source>Select a kernel: how its FLOPs, bytes, MFU and lost time were worked out shows here.</source>
        <translation>选择一个算子：这里显示其 FLOPs、字节数、MFU 和损失时间的推导过程。</translation>
    </message>
    <message>
        <source>By type</source>
        <translation>按类型</translation>
    </message>
    <message>
        <source>By type and shape</source>
        <translation>按类型和 shape</translation>
    </message>
    <message>
        <source>Exclusions</source>
        <translation>排除项</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>Step</translation>
    </message>
    <message>
        <source>Ranks</source>
        <translation>Rank</translation>
    </message>
    <message>
        <source>Heat map</source>
        <translation>热力图</translation>
    </message>
    <message>
        <source>Assumptions (changing one recomputes in the background)</source>
        <translation>假设（修改后在后台重新计算）</translation>
    </message>
    <message>
        <source>Detected from the profile</source>
        <translation>从 Profiling 数据识别</translation>
    </message>
    <message>
        <source>inferred from the mask</source>
        <translation>根据掩码推断</translation>
    </message>
    <message>
        <source>0 — full</source>
        <translation>0 — 全量</translation>
    </message>
    <message>
        <source>2 — leftUpCausal</source>
        <translation>2 — leftUpCausal（左上因果）</translation>
    </message>
    <message>
        <source>3 — rightDownCausal</source>
        <translation>3 — rightDownCausal（右下因果）</translation>
    </message>
    <message>
        <source>inferred from softmax_max</source>
        <translation>根据 softmax_max 推断</translation>
    </message>
    <message>
        <source>model FLOPs (2× forward)</source>
        <translation>模型 FLOPs（前向的 2 倍）</translation>
    </message>
    <message>
        <source>executed FLOPs (2.5×, HFU view)</source>
        <translation>实际执行 FLOPs（2.5 倍，HFU 口径）</translation>
    </message>
    <message>
        <source>exact geometry</source>
        <translation>精确几何</translation>
    </message>
    <message>
        <source>seed (continuous)</source>
        <translation>种子文档口径（连续近似）</translation>
    </message>
    <message>
        <source>FP32 matmuls ran with HF32/TF32</source>
        <translation>FP32 矩阵乘使用了 HF32/TF32</translation>
    </message>
    <message>
        <source>Chip (all ranks)</source>
        <translation>芯片（所有 rank）</translation>
    </message>
    <message>
        <source>FlashAttention sparse_mode</source>
        <translation>FlashAttention sparse_mode</translation>
    </message>
    <message>
        <source>FlashAttention layout</source>
        <translation>FlashAttention 布局</translation>
    </message>
    <message>
        <source>FlashAttention backward</source>
        <translation>FlashAttention 反向</translation>
    </message>
    <message>
        <source>Mask geometry</source>
        <translation>掩码几何口径</translation>
    </message>
    <message>
        <source>Show only this type ({0})</source>
        <translation>只显示该类型（{0}）</translation>
    </message>
    <message>
        <source>Show only this type and shape</source>
        <translation>只显示该类型和 shape</translation>
    </message>
    <message>
        <source>Show its kernels</source>
        <translation>显示其算子</translation>
    </message>
    <message>
        <source>Show in timeline</source>
        <translation>在时间线中显示</translation>
    </message>
    <message>
        <source>Warnings, capture configuration and conventions</source>
        <translation>警告、采集配置与口径</translation>
    </message>
    <message>
        <source>Assumptions</source>
        <extracomment>Sub-views by name (``mfu-desktop --view NAME``).</extracomment>
        <translation>假设</translation>
    </message>
    <message>
        <source>Loading {0}…</source>
        <translation>正在加载 {0}…</translation>
    </message>
    <message>
        <source>Analysing profile</source>
        <translation>正在分析 Profiling 数据</translation>
    </message>
    <message>
        <source>The analysis failed: {0}</source>
        <translation>分析失败：{0}</translation>
    </message>
    <message>
        <source>No rank could be loaded. {0}</source>
        <translation>没有可加载的 rank。{0}</translation>
    </message>
    <message>
        <source>rank {0} (+{1} % step time vs the fastest rank)</source>
        <translation>rank {0}（step 耗时比最快的 rank 多 {1} %）</translation>
    </message>
    <message>
        <source>Copied {0}</source>
        <translation>已复制 {0}</translation>
    </message>
    <message>
        <source>step {0} ms, mean of {1} step(s)</source>
        <translation>step {0} ms（{1} 个 step 的平均）</translation>
    </message>
    <message>
        <source>Hot operators by lost time = measured − roofline-attainable</source>
        <translation>按损失时间的热点算子 = 实测 − Roofline 可达时间</translation>
    </message>
    <message>
        <source>Show all kernels</source>
        <translation>显示全部算子</translation>
    </message>
    <message>
        <source>Stop showing only the highlighted kernels</source>
        <translation>不再只显示高亮的算子</translation>
    </message>
    <message>
        <source>The profile already open is kept.</source>
        <translation>已打开的数据保持不变。</translation>
    </message>
    <message>
        <source>Nothing could be loaded from {0}. {1}</source>
        <translation>无法从 {0} 加载任何数据。{1}</translation>
    </message>
    <message>
        <source>Loaded {0}</source>
        <translation>已加载 {0}</translation>
    </message>
    <message>
        <source>Set the chip…</source>
        <translation>设置芯片…</translation>
    </message>
    <message>
        <source>every rank</source>
        <translation>所有 rank</translation>
    </message>
    <message>
        <source>The profile does not confirm the chip of {0}: every MFU is a range over the chips it could be{1}. Set the chip in Assumptions for one figure.</source>
        <translation>Profiling 数据无法确认 {0} 的芯片：每个 MFU 都是可能芯片之间的范围{1}。在“假设”中设置芯片即可得到单一数值。</translation>
    </message>
    <message>
        <source>{0} was not loaded: {1}</source>
        <translation>{0} 未加载：{1}</translation>
    </message>
    <message>
        <source>Cluster: {0} — {1}</source>
        <translation>集群：{0} — {1}</translation>
    </message>
    <message>
        <source>all ranks, {0} TFLOP/s</source>
        <translation>所有 rank，{0} TFLOP/s</translation>
    </message>
    <message>
        <source>range over ranks</source>
        <translation>各 rank 的范围</translation>
    </message>
    <message>
        <source>step {0} ms (mean per rank); slowest rank {1}: {2} ms</source>
        <translation>step {0} ms（每 rank 平均）；最慢 rank {1}：{2} ms</translation>
    </message>
    <message>
        <source>mean over ranks</source>
        <translation>各 rank 平均</translation>
    </message>
    <message>
        <source>Slow ranks</source>
        <translation>慢 rank</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>rank {0}</source>
        <translation>rank {0}</translation>
    </message>
    <message>
        <source>step time above the fastest rank + 5 %</source>
        <translation>step 耗时超过最快 rank + 5 %</translation>
    </message>
    <message>
        <source>not confirmed</source>
        <translation>未确认</translation>
    </message>
    <message>
        <source>select a rank to see its kernels</source>
        <translation>选择一个 rank 查看其算子</translation>
    </message>
    <message>
        <source>chip not confirmed — set it in Assumptions</source>
        <translation>芯片未确认——请在“假设”中设置</translation>
    </message>
    <message>
        <source>not confirmed — set it in Assumptions</source>
        <translation>未确认——请在“假设”中设置</translation>
    </message>
    <message>
        <source>MFU per kernel needs the chip, which the profile does not confirm: set it in Assumptions (the cards show the range over the chips it could be).</source>
        <translation>各算子 MFU 需要确定芯片，而 Profiling 数据无法确认：请在“假设”中设置（卡片显示的是可能芯片之间的范围）。</translation>
    </message>
    <message>
        <source>{0}: {1} — {2}</source>
        <translation>{0}：{1} — {2}</translation>
    </message>
    <message>
        <source>Rank {0} — {1}</source>
        <translation>Rank {0} — {1}</translation>
    </message>
    <message>
        <source>{0} TFLOP/s over {1} counted kernels</source>
        <translation>{1} 个计入算子，{0} TFLOP/s</translation>
    </message>
    <message>
        <source>no FLOPs-based MFU</source>
        <translation>无基于 FLOPs 的 MFU</translation>
    </message>
    <message>
        <source>no step trace</source>
        <translation>无 step trace</translation>
    </message>
    <message>
        <source>duration-weighted over cube/mix kernels</source>
        <translation>按耗时加权（cube/mix 算子）</translation>
    </message>
    <message>
        <source>a PyTorch profiler trace has no hardware counters</source>
        <translation>PyTorch profiler trace 不含硬件计数器</translation>
    </message>
    <message>
        <source>Tensor Core util</source>
        <translation>Tensor Core 利用率</translation>
    </message>
    <message>
        <source>Matrix Core util</source>
        <translation>Matrix Core 利用率</translation>
    </message>
    <message>
        <source>Matrix unit util</source>
        <translation>矩阵单元利用率</translation>
    </message>
    <message>
        <source>preparing {0} kernels…</source>
        <translation>正在准备 {0} 个算子…</translation>
    </message>
    <message>
        <source>Preparing the kernel table</source>
        <translation>正在准备算子表</translation>
    </message>
    <message>
        <source>kernels not reachable from this machine ({0}): the summary is shown</source>
        <translation>本机无法访问该 rank 的算子数据（{0}）：显示的是汇总</translation>
    </message>
    <message>
        <source>loading the kernels of rank {0} from {1}…</source>
        <translation>正在从 {1} 加载 rank {0} 的算子…</translation>
    </message>
    <message>
        <source>Loading the rank&apos;s kernels</source>
        <translation>正在加载该 rank 的算子</translation>
    </message>
    <message>
        <source>the rank&apos;s kernels could not be read: {0}</source>
        <translation>无法读取该 rank 的算子：{0}</translation>
    </message>
    <message>
        <source>Capture: {0}</source>
        <translation>采集配置：{0}</translation>
    </message>
    <message>
        <source>Hot operators by lost time</source>
        <translation>按损失时间排序的热点算子</translation>
    </message>
    <message>
        <source>Hot operators by time</source>
        <translation>按耗时排序的热点算子</translation>
    </message>
    <message>
        <source>{0} of {1} kernels</source>
        <translation>{0} / {1} 个算子</translation>
    </message>
    <message>
        <source>The kernel shown before is filtered out: select a kernel.</source>
        <translation>之前显示的算子已被过滤掉：请选择一个算子。</translation>
    </message>
    <message>
        <source>Highlighted: {0} ({1} kernels)</source>
        <translation>高亮：{0}（{1} 个算子）</translation>
    </message>
</context>
<context>
    <name>QDialog</name>
    <message>
        <source>Formulas and conventions</source>
        <translation>公式与口径</translation>
    </message>
    <message>
        <source>User guide</source>
        <translation>用户指南</translation>
    </message>
    <message>
        <source>About MFU Desktop</source>
        <translation>关于 MFU Desktop</translation>
    </message>
</context>
<context>
    <name>RankHeatMap</name>
    <message>
        <source>step time (ms per step)</source>
        <extracomment>Display scale per metric kind: µs → ms, fraction → %, MB → GB (binary, as the catalog&apos;s memory_gb). Cells get their rank number written in them up to this many ranks. A cell was clicked: the position of its rank in the table (the order of ``FolderAnalysis.ranks``). (column of the cluster table, label, kind): kind &quot;ms&quot; (µs shown in ms), &quot;pct&quot;, or &quot;gb&quot; (MB shown in GB).</extracomment>
        <translation>step 耗时（每 step，ms）</translation>
    </message>
    <message>
        <source>step MFU</source>
        <translation>step MFU</translation>
    </message>
    <message>
        <source>operator MFU</source>
        <translation>算子 MFU</translation>
    </message>
    <message>
        <source>communication wait (ms per step)</source>
        <translation>通信等待（每 step，ms）</translation>
    </message>
    <message>
        <source>communication not overlapped (ms per step)</source>
        <translation>未掩盖通信（每 step，ms）</translation>
    </message>
    <message>
        <source>free time (ms per step)</source>
        <translation>空闲时间（每 step，ms）</translation>
    </message>
    <message>
        <source>peak memory reserved (GB)</source>
        <translation>峰值预留内存 (GB)</translation>
    </message>
    <message>
        <source>memory used of the chip&apos;s capacity</source>
        <translation>芯片内存占用率</translation>
    </message>
    <message>
        <source>Colour by</source>
        <translation>着色依据</translation>
    </message>
    <message>
        <source>Rank heat map: load a profile with several ranks, or a cluster summary.</source>
        <translation>rank 热力图：请加载包含多个 rank 的性能数据或集群汇总。</translation>
    </message>
    <message>
        <source>No rank has {0} in this profile.</source>
        <translation>该性能数据中没有 rank 具有{0}。</translation>
    </message>
</context>
<context>
    <name>RankPeaksChart</name>
    <message>
        <source>Peak memory per rank</source>
        <translation>各 rank 的峰值内存</translation>
    </message>
    <message>
        <source>rank</source>
        <translation>rank</translation>
    </message>
    <message>
        <source>memory (GB)</source>
        <translation>内存 (GB)</translation>
    </message>
    <message>
        <source>peak allocated</source>
        <translation>峰值已分配</translation>
    </message>
    <message>
        <source>peak reserved</source>
        <translation>峰值预留</translation>
    </message>
    <message>
        <source>process (APP)</source>
        <translation>进程 (APP)</translation>
    </message>
    <message>
        <source>capacity</source>
        <translation>容量</translation>
    </message>
    <message>
        <source>No rank has memory data: capture with profile_memory=True.</source>
        <translation>没有任何 rank 有内存数据：采集时请设置 profile_memory=True。</translation>
    </message>
    <message>
        <source>{0}: allocated {1}, reserved {2}, process {3}</source>
        <translation>{0}：已分配 {1}，已预留 {2}，进程 {3}</translation>
    </message>
</context>
<context>
    <name>RankTreeModel</name>
    <message>
        <source>Rank</source>
        <extracomment>The column of a rank&apos;s chip. The column of &quot;⚠ N&quot; (a rank&apos;s warnings), &quot;slow: …&quot; (the cluster) and a failure&apos;s reason.</extracomment>
        <translation>Rank</translation>
    </message>
    <message>
        <source>Chip</source>
        <translation>芯片</translation>
    </message>
    <message>
        <source>MFU</source>
        <translation>MFU</translation>
    </message>
    <message>
        <source>Tier</source>
        <translation>档位</translation>
    </message>
    <message>
        <source>Source</source>
        <translation>来源</translation>
    </message>
    <message>
        <source>Warnings</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Cluster ({0})</source>
        <translation>集群（{0}）</translation>
    </message>
    <message>
        <source>rank {0} (+{1} %)</source>
        <translation>rank {0}（+{1} %）</translation>
    </message>
    <message>
        <source>slow: {0}</source>
        <translation>慢：{0}</translation>
    </message>
    <message>
        <source>not confirmed</source>
        <translation>未确认</translation>
    </message>
    <message>
        <source>Click: every warning of this rank (Assumptions)</source>
        <translation>点击：查看该 rank 的全部警告（假设页）</translation>
    </message>
    <message>
        <source>(slow)</source>
        <translation>（慢）</translation>
    </message>
    <message>
        <source>{0} — not loaded</source>
        <translation>{0} — 未加载</translation>
    </message>
</context>
<context>
    <name>RelativePerformanceChart</name>
    <message>
        <source>Relative performance (baseline = 1.0)</source>
        <translation>相对性能（基线 = 1.0）</translation>
    </message>
    <message>
        <source>chip</source>
        <translation>芯片</translation>
    </message>
    <message>
        <source>speed-up (×)</source>
        <translation>加速比 (×)</translation>
    </message>
    <message>
        <source>compute-class kernels</source>
        <translation>计算类算子</translation>
    </message>
    <message>
        <source>whole step (time-based)</source>
        <translation>整个 step（按时间）</translation>
    </message>
    <message>
        <source>partly predicted (*)</source>
        <translation>部分预估 (*)</translation>
    </message>
    <message>
        <source>Relative performance: load a profile, then Predict.</source>
        <translation>相对性能：先加载 Profiling 数据，再点击“预估”。</translation>
    </message>
    <message>
        <source>compute-class kernels: {0}×</source>
        <translation>计算类算子：{0}×</translation>
    </message>
    <message>
        <source>whole step: {0}×</source>
        <translation>整个 step：{0}×</translation>
    </message>
</context>
<context>
    <name>RooflineChart</name>
    <message>
        <source>Roofline: kernels with FLOPs (intensity vs TFLOP/s)</source>
        <extracomment>At most this many points (the longest kernels); the rest add nothing visible.</extracomment>
        <translation>Roofline：有 FLOPs 的 kernel（算术强度 vs TFLOP/s）</translation>
    </message>
    <message>
        <source>Bandwidth: kernels without FLOPs (bytes vs GB/s)</source>
        <translation>带宽：无 FLOPs 的 kernel（字节数 vs GB/s）</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline</translation>
    </message>
    <message>
        <source>arithmetic intensity (FLOP/byte, log scale)</source>
        <translation>算术强度（FLOP/字节，对数坐标）</translation>
    </message>
    <message>
        <source>achieved TFLOP/s (log scale)</source>
        <translation>实际 TFLOP/s（对数坐标）</translation>
    </message>
    <message>
        <source> (the {0} longest of {1})</source>
        <translation>（{1} 个中耗时最长的 {0} 个）</translation>
    </message>
    <message>
        <source>Bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <source>Roofline: open a profile and select a rank or the cluster.</source>
        <translation>Roofline：请打开 Profiling 数据并选择一个 rank 或集群。</translation>
    </message>
    <message>
        <source>Bandwidth: no kernel without FLOPs has known bytes (shapes and dtypes) here.</source>
        <translation>带宽：这里没有已知字节数（shape 和数据类型）的无 FLOPs kernel。</translation>
    </message>
    <message>
        <source>Roofline: no kernel has both FLOPs and bytes here (the Bandwidth view shows the kernels without FLOPs).</source>
        <translation>Roofline：这里没有同时具有 FLOPs 和字节数的 kernel（“带宽”视图显示无 FLOPs 的 kernel）。</translation>
    </message>
    <message>
        <source>the step (time-weighted)</source>
        <translation>整个 step（按时间加权）</translation>
    </message>
    <message>
        <source>the step</source>
        <translation>step</translation>
    </message>
    <message>
        <source>bytes moved per call (log scale)</source>
        <translation>每次调用搬运的字节数（对数坐标）</translation>
    </message>
    <message>
        <source>achieved GB/s (log scale)</source>
        <translation>实际 GB/s（对数坐标）</translation>
    </message>
</context>
<context>
    <name>RulesModel</name>
    <message>
        <source>On</source>
        <translation>启用</translation>
    </message>
    <message>
        <source>Rule</source>
        <translation>规则</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Chips containing</source>
        <translation>芯片名包含</translation>
    </message>
    <message>
        <source>Factor</source>
        <translation>系数</translation>
    </message>
    <message>
        <source>Bandwidth GB/s</source>
        <translation>带宽 GB/s</translation>
    </message>
    <message>
        <source>Operator types (pattern)</source>
        <translation>算子类型（匹配模式）</translation>
    </message>
    <message>
        <source>Only between vendor</source>
        <translation>仅限同厂商</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>说明</translation>
    </message>
    <message>
        <source>efficiency</source>
        <translation>效率</translation>
    </message>
    <message>
        <source>bandwidth</source>
        <translation>带宽</translation>
    </message>
    <message>
        <source>A regular expression searched in the operator type, any case (empty: every type)</source>
        <translation>在算子类型中查找的正则表达式，不区分大小写（留空：所有类型）</translation>
    </message>
    <message>
        <source>kind must be {0} or {1}</source>
        <translation>类型必须是{0}或{1}</translation>
    </message>
    <message>
        <source>factor must be positive</source>
        <translation>系数必须为正数</translation>
    </message>
    <message>
        <source>bandwidth must be positive</source>
        <translation>带宽必须为正数</translation>
    </message>
    <message>
        <source>Rule not changed: {0}</source>
        <translation>规则未修改：{0}</translation>
    </message>
</context>
<context>
    <name>StartPage</name>
    <message>
        <source>Open a profile</source>
        <translation>打开 Profiling 数据</translation>
    </message>
    <message>
        <source>Drop a profiler folder anywhere on this window — a cluster root, *_ascend_pt rank folders, ASCEND_PROFILER_OUTPUT, msprof PROF_* folders — or PyTorch profiler traces (*.pt.trace.json, *.json.gz), or:</source>
        <translation>将 Profiling 目录拖到此窗口任意位置——集群根目录、*_ascend_pt rank 目录、ASCEND_PROFILER_OUTPUT、msprof PROF_* 目录——或 PyTorch profiler trace（*.pt.trace.json、*.json.gz），或者：</translation>
    </message>
    <message>
        <source>Open folder…</source>
        <translation>打开目录…</translation>
    </message>
    <message>
        <source>Open trace or db files…</source>
        <translation>打开 trace 或 db 文件…</translation>
    </message>
    <message>
        <source>Open the demo profile</source>
        <translation>打开演示数据</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>最近打开</translation>
    </message>
    <message>
        <source>Or work out an operator&apos;s MFU in the Calculator</source>
        <translation>或者在计算器中计算单个算子的 MFU</translation>
    </message>
</context>
<context>
    <name>StepBreakdownChart</name>
    <message>
        <source>rank</source>
        <extracomment>A bar was clicked: the position of its rank in the table given to :meth:`set_data`.</extracomment>
        <translation>rank</translation>
    </message>
    <message>
        <source>Step breakdown per rank (mean per step)</source>
        <translation>各 rank 的 step 拆解（每 step 平均）</translation>
    </message>
    <message>
        <source>time per step</source>
        <translation>每 step 耗时</translation>
    </message>
    <message>
        <source>computing</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>communication (not overlapped)</source>
        <translation>未掩盖通信</translation>
    </message>
    <message>
        <source>free</source>
        <translation>空闲时间</translation>
    </message>
    <message>
        <source>bubble</source>
        <translation>空泡</translation>
    </message>
    <message>
        <source>Step breakdown: no step trace (step_trace_time.csv or analysis.db) in this profile.</source>
        <translation>Step 拆解：该 profile 没有 step trace（step_trace_time.csv 或 analysis.db）。</translation>
    </message>
    <message>
        <source>Click: select this rank</source>
        <translation>点击：选中该 rank</translation>
    </message>
</context>
<context>
    <name>TableView</name>
    <message>
        <source>Column presets</source>
        <extracomment>The preset that shows every column. How a remembered choice is stored: ``preset:NAME`` or ``columns:key,key,…``. The user&apos;s column choices by table key, shared by every table (the window binds it to the settings). Right-click on rows: the menu (Copy already in it) and the source rows selected; add actions to it.</extracomment>
        <translation>列预设</translation>
    </message>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Essentials</source>
        <translation>常用</translation>
    </message>
    <message>
        <source>Roofline</source>
        <translation>Roofline</translation>
    </message>
    <message>
        <source>Hardware counters</source>
        <translation>硬件计数器</translation>
    </message>
    <message>
        <source>All columns</source>
        <translation>全部列</translation>
    </message>
</context>
<context>
    <name>Timeline</name>
    <message>
        <source>time from the trace&apos;s origin</source>
        <extracomment>Height of one row on screen (px). A hover or click this close to a kernel (px) finds it. Step labels drawn at most (the rest are in the step selector). Labels on the left axis are cut to this many characters.</extracomment>
        <translation>距 trace 起点的时间</translation>
    </message>
    <message>
        <source>Timeline: select a rank (or the cluster) in the tree.</source>
        <translation>时间线：请在左侧树中选择一个 rank（或集群）。</translation>
    </message>
    <message>
        <source>time from each rank&apos;s step start</source>
        <translation>距各 rank step 起点的时间</translation>
    </message>
    <message>
        <source>step {0}</source>
        <translation>step {0}</translation>
    </message>
    <message>
        <source>rank {0}</source>
        <translation>rank {0}</translation>
    </message>
    <message>
        <source>click to open this rank&apos;s lanes</source>
        <translation>单击展开该 rank 的各泳道</translation>
    </message>
    <message>
        <source>step {0}: {1}</source>
        <translation>step {0}：{1}</translation>
    </message>
    <message>
        <source>click to zoom to this step</source>
        <translation>单击缩放到该 step</translation>
    </message>
    <message>
        <source>≥ 80 % of its time lost</source>
        <translation>≥ 80 % 的耗时为损失时间</translation>
    </message>
    <message>
        <source>70–80 % lost</source>
        <translation>损失 70–80 %</translation>
    </message>
    <message>
        <source>40–70 % lost</source>
        <translation>损失 40–70 %</translation>
    </message>
    <message>
        <source>30–40 % lost</source>
        <translation>损失 30–40 %</translation>
    </message>
    <message>
        <source>&lt; 30 % lost</source>
        <translation>损失 &lt; 30 %</translation>
    </message>
    <message>
        <source>not judged (communication, AI CPU …)</source>
        <translation>不评判（通信、AI CPU …）</translation>
    </message>
    <message>
        <source>MFU / BW &lt; 20 %</source>
        <translation>MFU / 带宽利用率 &lt; 20 %</translation>
    </message>
    <message>
        <source>&gt; 100 % (impossible)</source>
        <translation>&gt; 100 %（物理上不可能）</translation>
    </message>
    <message>
        <source>no MFU or bandwidth figure</source>
        <translation>无 MFU 或带宽利用率</translation>
    </message>
    <message>
        <source>computing</source>
        <translation>计算</translation>
    </message>
    <message>
        <source>communication (not overlapped)</source>
        <translation>未掩盖通信</translation>
    </message>
    <message>
        <source>free</source>
        <translation>空闲时间</translation>
    </message>
    <message>
        <source>host operators</source>
        <translation>Host 侧算子</translation>
    </message>
    <message>
        <source>memory ({0}): allocated (solid), reserved (dashed)</source>
        <translation>内存（{0}）：已分配（实线）、已预留（虚线）</translation>
    </message>
    <message>
        <source>duration {0}</source>
        <translation>耗时 {0}</translation>
    </message>
    <message>
        <source>lost {0} (measured − roofline-attainable)</source>
        <translation>损失时间 {0}（实测 − Roofline 可达时间）</translation>
    </message>
    <message>
        <source>host operator, {0}</source>
        <translation>Host 侧算子，耗时 {0}</translation>
    </message>
    <message>
        <source>launched {0} kernel(s): click to highlight them</source>
        <translation>下发了 {0} 个 kernel：单击高亮它们</translation>
    </message>
    <message>
        <source>no memory sample before this time</source>
        <translation>此时刻之前没有内存采样</translation>
    </message>
    <message>
        <source>allocated {0} MB, reserved {1} MB</source>
        <translation>已分配 {0} MB，已预留 {1} MB</translation>
    </message>
    <message>
        <source>host thread {0} · depth {1}</source>
        <translation>Host 线程 {0} · 第 {1} 层</translation>
    </message>
    <message>
        <source>stream {0}</source>
        <translation>stream {0}</translation>
    </message>
    <message>
        <source>communication</source>
        <translation>通信</translation>
    </message>
    <message>
        <source>kernels</source>
        <translation>算子</translation>
    </message>
    <message>
        <source>steps</source>
        <translation>step</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>breakdown</source>
        <translation>step 拆解</translation>
    </message>
    <message>
        <source>rank {0} breakdown</source>
        <translation>rank {0} 拆解</translation>
    </message>
    <message>
        <source>rank {0} (summary)</source>
        <translation>rank {0}（汇总）</translation>
    </message>
</context>
<context>
    <name>TimelineView</name>
    <message>
        <source>W/S zoom · A/D pan · Ctrl+wheel zoom · wheel scrolls the rows · drag pans · click a kernel for its derivation, a host operator for its kernels</source>
        <extracomment>Ranks whose timeline is kept for a quick return (the least recently shown is dropped).</extracomment>
        <translation>W/S 缩放 · A/D 平移 · Ctrl+滚轮缩放 · 滚轮上下滚动泳道 · 拖动平移 · 单击算子查看推导，单击 Host 侧算子高亮其下发的算子</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>时间线</translation>
    </message>
    <message>
        <source>Colour: lost time</source>
        <translation>着色：损失时间</translation>
    </message>
    <message>
        <source>Colour: MFU / BW band</source>
        <translation>着色：MFU / 带宽区间</translation>
    </message>
    <message>
        <source>Colour: operator family</source>
        <translation>着色：算子族</translation>
    </message>
    <message>
        <source>Colour: stream</source>
        <translation>着色：stream</translation>
    </message>
    <message>
        <source>Zoom to step</source>
        <translation>缩放到 step</translation>
    </message>
    <message>
        <source>Fit</source>
        <translation>全部显示</translation>
    </message>
    <message>
        <source>Export Chrome trace…</source>
        <translation>导出 Chrome trace…</translation>
    </message>
    <message>
        <source>A trace file for Perfetto and MindStudio Insight: kernels with their MFU, bandwidth and lost time, host operators, steps, memory</source>
        <translation>供 Perfetto 与 MindStudio Insight 打开的 trace 文件：含各算子的 MFU、带宽利用率与损失时间、Host 侧算子、step、内存</translation>
    </message>
    <message>
        <source>Timeline: open a profile, then select a rank (or the cluster) in the tree.</source>
        <translation>时间线：请先打开 Profiling 数据，再在左侧树中选择一个 rank（或集群）。</translation>
    </message>
    <message>
        <source>Rank {0} comes from a cluster summary: its step breakdown alone (no kernels on this machine).</source>
        <translation>rank {0} 来自集群汇总：仅显示其 step 拆解（本机没有其算子数据）。</translation>
    </message>
    <message>
        <source>Preparing the timeline of rank {0} ({1} kernels)…</source>
        <translation>正在准备 rank {0} 的时间线（{1} 个算子）…</translation>
    </message>
    <message>
        <source>Aligning the step of {0} rank(s)…</source>
        <translation>正在对齐 {0} 个 rank 的 step…</translation>
    </message>
    <message>
        <source>Preparing the timeline</source>
        <translation>正在准备时间线</translation>
    </message>
    <message>
        <source>The timeline could not be prepared: {0}</source>
        <translation>无法准备时间线：{0}</translation>
    </message>
    <message>
        <source>step {0}</source>
        <translation>step {0}</translation>
    </message>
    <message>
        <source>whole capture</source>
        <translation>整个采集</translation>
    </message>
    <message>
        <source>Highlighted: {0} ({1} kernels)</source>
        <translation>已高亮：{0}（{1} 个算子）</translation>
    </message>
    <message>
        <source>Select a rank with its kernels (not the cluster or a summary) to export its Chrome trace.</source>
        <translation>请选择一个含算子数据的 rank（而非集群或汇总）以导出其 Chrome trace。</translation>
    </message>
    <message>
        <source>Export Chrome trace</source>
        <translation>导出 Chrome trace</translation>
    </message>
    <message>
        <source>Chrome trace (*.json)</source>
        <translation>Chrome trace (*.json)</translation>
    </message>
    <message>
        <source>Wrote {0}: {1} kernels, {2} host operators — open it in Perfetto or MindStudio Insight</source>
        <translation>已写入 {0}：{1} 个算子、{2} 个 Host 侧算子——可在 Perfetto 或 MindStudio Insight 中打开</translation>
    </message>
    <message>
        <source>Export failed: {0}</source>
        <translation>导出失败：{0}</translation>
    </message>
    <message>
        <source>Exporting the Chrome trace</source>
        <translation>正在导出 Chrome trace</translation>
    </message>
</context>
<context>
    <name>WaterfallChart</name>
    <message>
        <source>Where the step&apos;s change comes from</source>
        <translation>step 变化来自哪里</translation>
    </message>
    <message>
        <source>time per step</source>
        <extracomment>Colours: time gained (NEW faster), time lost, the totals, and the two sides. Height of the paired chart&apos;s bottom axis and its title, beside the line per group.</extracomment>
        <translation>每 step 耗时</translation>
    </message>
    <message>
        <source>step</source>
        <translation>step</translation>
    </message>
    <message>
        <source>NEW slower</source>
        <translation>NEW 变慢</translation>
    </message>
    <message>
        <source>NEW faster</source>
        <translation>NEW 变快</translation>
    </message>
    <message>
        <source>The step&apos;s change needs a step trace on both sides.</source>
        <translation>step 变化需要两侧都有 step trace。</translation>
    </message>
    <message>
        <source>BASE step</source>
        <translation>BASE step</translation>
    </message>
    <message>
        <source>NEW step</source>
        <translation>NEW step</translation>
    </message>
    <message>
        <source>per step</source>
        <translation>每 step</translation>
    </message>
</context>
<context>
    <name>Wording</name>
    <message>
        <source>1 rank</source>
        <translation>1 个 rank</translation>
    </message>
    <message>
        <source>{0} ranks</source>
        <translation>{0} 个 rank</translation>
    </message>
</context>
</TS>
